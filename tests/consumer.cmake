# mbdc from a user's CMake project (tests/consumer_test.sh, tests/consumer/): installed and found
# with find_package, and through add_subdirectory. The consumer is built with this build's
# compiler and, in a sanitizer build, its sanitizer flags (the installed runtime has them).
set(consumer_flags "")
if(MBDC_SANITIZE)
  set(consumer_flags "-fsanitize=address,undefined -fno-omit-frame-pointer")
endif()
set(modes subdir)
if(MBDC_INSTALL)
  list(APPEND modes install)
endif()
foreach(mode IN LISTS modes)
  mbdc_add_script_test(NAME consumer_${mode} SCRIPT consumer_test.sh TIMEOUT 600
    ARGS ${mode} ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER}
         "${consumer_flags}")
  set_property(TEST consumer_${mode} APPEND PROPERTY LABELS cmake)
endforeach()
