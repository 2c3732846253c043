# Tests of the generic runtime solver (runtime/), one file per runtime file.
foreach(t spatial jcalc rnea crba fk integrate joint_wrenches aba ltdl minv cfa energy)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_${t}.c)
    mbdc_add_test(NAME test_${t} SOURCES test_${t}.c mb_randtree.c LIBS mbrt)
  endif()
endforeach()
