# mbdc from a user's CMake project (tests/consumer_test.sh, tests/consumer/): installed and found
# with find_package, and through add_subdirectory. The consumer is built with this build's
# compiler and, in a sanitizer build, its sanitizer flags (the installed runtime has them).
if(NOT TARGET mbdc)
  return()
endif()
set(consumer_flags "")
if(MBDC_SANITIZE)
  set(consumer_flags "-fsanitize=address,undefined -fno-omit-frame-pointer")
endif()
set(modes subdir)
if(MBDC_INSTALL)
  list(APPEND modes install)
endif()
foreach(mode IN LISTS modes)
  add_test(NAME consumer_${mode}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/consumer_test.sh ${mode} ${PROJECT_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER} "${consumer_flags}")
  set_tests_properties(consumer_${mode} PROPERTIES LABELS cmake TIMEOUT 600)
endforeach()
