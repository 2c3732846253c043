# The symbolic expression engine (generator/sym*.c) and number formatting (generator/numfmt.c).
mbdc_add_test(NAME test_sym SOURCES test_sym.c LIBS mbdc_core)
mbdc_add_test(NAME test_numfmt SOURCES test_numfmt.c LIBS mbdc_core)
mbdc_add_test(NAME test_sym_limits SOURCES test_sym_limits.c LIBS mbdc_core)
# The embedded Lua and the symbolic-scalar binding (generator/lua_host.c, lua_sym.c).
mbdc_add_test(NAME test_lua_host SOURCES test_lua_host.c LIBS mbdc_core)
# Every built-in recipe, its expression graph evaluated against the runtime (no C compiler).
mbdc_add_test(NAME test_recipes SOURCES test_recipes.c mbg_examples.c mbg_randmodel.c
              mbg_testmodel.c mb_randtree.c LIBS mbdc_core)
# The generated derivatives (rnea_derivatives, aba_derivatives) against differences of the
# generated rnea and aba, and the identities between them (no C compiler).
mbdc_add_test(NAME test_gen_derivatives SOURCES test_gen_derivatives.c mbg_examples.c
              mbg_randmodel.c mbg_testmodel.c mb_randtree.c LIBS mbdc_core)
# The generated integrate_jacobians and difference_jacobians against the runtime's, tiny angles
# included (no C compiler).
mbdc_add_test(NAME test_gen_manifold SOURCES test_gen_manifold.c mbg_randmodel.c
              mbg_testmodel.c mb_randtree.c LIBS mbdc_core)
# The generated base_regressor, base_params and joint_regressor against the runtime's regressors,
# the identity Yb beta = Y pi and the rank of the stacked Yb (no C compiler).
mbdc_add_test(NAME test_gen_base SOURCES test_gen_base.c mbg_randmodel.c mbg_testmodel.c
              mb_randtree.c LIBS mbdc_core)
