# Joint-frame alignment (generator/align.c): unit cases, exactness, dynamics invariance.
mbdc_add_test(NAME test_align SOURCES test_align.c mbg_testmodel.c mb_randtree.c LIBS mbdc_core)
