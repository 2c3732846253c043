# The python3 of the Python package (python/mbdc, docs/python.md): Debian's /usr/bin/python3
# when present (another python3 first on PATH, e.g. pyenv's, lacks Debian's numpy), else
# python3 on PATH. Sets MBDC_PYTHON (cache), MBDC_PYTHON_VERSION (3.11; empty without a
# python3) and MBDC_PYTHON_INSTALL_DIR (cache: where `cmake --install` puts the package,
# relative to the prefix: lib/python3.11/dist-packages, on Debian's python3's path for the
# prefix /usr/local). Used by cmake/install.cmake and tests/python.cmake.
if(NOT DEFINED MBDC_PYTHON)
  if(EXISTS /usr/bin/python3)
    set(python /usr/bin/python3)
  else()
    find_program(python NAMES python3)
  endif()
  set(MBDC_PYTHON "${python}" CACHE FILEPATH "python3 for the mbdc Python package's tests")
endif()
set(MBDC_PYTHON_VERSION "")
if(MBDC_PYTHON)
  execute_process(COMMAND ${MBDC_PYTHON} -c "import sys; print('%d.%d' % sys.version_info[:2])"
                  OUTPUT_VARIABLE MBDC_PYTHON_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE python_rc ERROR_QUIET)
  if(NOT python_rc EQUAL 0)
    set(MBDC_PYTHON_VERSION "")
  endif()
endif()
if(MBDC_PYTHON_VERSION)
  set(python_dir lib/python${MBDC_PYTHON_VERSION}/dist-packages)
else()
  set(python_dir lib/python3/dist-packages)
endif()
set(MBDC_PYTHON_INSTALL_DIR ${python_dir} CACHE STRING
    "Where cmake --install puts the Python package mbdc (relative to the prefix)")
