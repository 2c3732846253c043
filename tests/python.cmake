# The Python package (python/mbdc, docs/python.md): its pytest suite python/tests/, run by
# MBDC_PYTHON (cmake/python.cmake: Debian's /usr/bin/python3) with this build's mbdc, pytest's
# temporary files and the models it compiles under <build>/python-tests/, nothing written into
# the sources; and examples/python/pendulum_swingup.py --check (an MPPI swing-up of the double
# pendulum, its plot written into the build tree). Not registered, with a message, when that
# python3 lacks numpy or pytest (or matplotlib, for the example); scripts/setup.sh installs them.
include(${PROJECT_SOURCE_DIR}/cmake/python.cmake)
set(python_missing "")
if(NOT MBDC_PYTHON_VERSION)
  set(python_missing "no python3")
else()
  execute_process(COMMAND ${MBDC_PYTHON} -c "import numpy, pytest"
                  RESULT_VARIABLE python_rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT python_rc EQUAL 0)
    set(python_missing "${MBDC_PYTHON} lacks numpy or pytest")
  endif()
endif()
if(python_missing)
  message(STATUS "mbdc: the Python package's tests are not registered: ${python_missing} "
                 "(apt-get install python3-numpy python3-pytest)")
else()
  add_test(NAME python_package
    COMMAND ${MBDC_PYTHON} -m pytest -q -p no:cacheprovider
            --basetemp=${PROJECT_BINARY_DIR}/python-tests ${PROJECT_SOURCE_DIR}/python/tests)
  set(python_env MBDC=$<TARGET_FILE:mbdc> MBDC_SOURCE_DIR=${PROJECT_SOURCE_DIR}
      MBDC_CACHE=${PROJECT_BINARY_DIR}/python-cache PYTHONPATH=${PROJECT_SOURCE_DIR}/python
      PYTHONDONTWRITEBYTECODE=1 CC=${CMAKE_C_COMPILER})
  set_tests_properties(python_package PROPERTIES LABELS "python" TIMEOUT 600
                       ENVIRONMENT "${python_env}")
endif()
if(NOT python_missing)
  execute_process(COMMAND ${MBDC_PYTHON} -c "import matplotlib"
                  RESULT_VARIABLE python_rc OUTPUT_QUIET ERROR_QUIET)
  if(python_rc EQUAL 0)
    add_test(NAME python_example
      COMMAND ${MBDC_PYTHON} ${PROJECT_SOURCE_DIR}/examples/python/pendulum_swingup.py --check
              --out ${PROJECT_BINARY_DIR}/python_pendulum_swingup.png)
    set_tests_properties(python_example PROPERTIES LABELS "python" TIMEOUT 300
                         ENVIRONMENT "${python_env}")
  else()
    message(STATUS "mbdc: python_example is not registered: ${MBDC_PYTHON} lacks matplotlib "
                   "(apt-get install python3-matplotlib)")
  endif()
endif()
