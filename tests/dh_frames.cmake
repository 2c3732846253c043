# The DH working frames (generator/dh_frames.c): exactness, sparsity, models left as they are.
mbdc_add_test(NAME test_dh_frames SOURCES test_dh_frames.c mbg_testmodel.c mb_randtree.c
              LIBS mbdc_core)
