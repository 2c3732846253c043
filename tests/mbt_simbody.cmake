# The Simbody mapping shared by tests/test_simbody.cpp and bench/bench_loops.cpp: the static
# library mbt_simbody (tests/mbt_simbody.cpp: a runtime model, its loops and springs rebuilt in
# Simbody; tests/mbt_loopmodel.c: a .mbd file loaded in-process). Included by tests/simbody.cmake
# and bench/CMakeLists.txt, whichever comes first defines it. Sets MBT_SIMBODY_FOUND; nothing else
# when Debian's libsimbody-dev is not installed (scripts/setup.sh installs it; its CMake package
# SimbodyConfig.cmake is found by find_package). C++ is enabled for the including directory only.
set(MBT_SIMBODY_FOUND OFF)
if(NOT TARGET mbdc_core)
  return()
endif()
find_package(Simbody CONFIG QUIET)
if(NOT Simbody_FOUND)
  return()
endif()
enable_language(CXX)
set(MBT_SIMBODY_FOUND ON)
if(TARGET mbt_simbody)
  return()
endif()
add_library(mbt_simbody STATIC ${CMAKE_CURRENT_LIST_DIR}/mbt_simbody.cpp
            ${CMAKE_CURRENT_LIST_DIR}/mbt_loopmodel.c)
set_target_properties(mbt_simbody PROPERTIES CXX_STANDARD 14 CXX_STANDARD_REQUIRED ON)
target_compile_options(mbt_simbody PRIVATE
  $<$<COMPILE_LANGUAGE:C>:${MBDC_WARNINGS}> $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra ${MBDC_WERROR_FLAG}>)
# Debian's libSimTKcommon is built without NDEBUG, and Simbody's headers lay out classes
# differently with it (StateImpl.h: CacheEntryInfo's version fields under #ifndef NDEBUG): inline
# code compiled here with NDEBUG (RelWithDebInfo, Release) and interposed on the library's
# crashes it. Every C++ file using Simbody is compiled without NDEBUG, as the library was.
target_compile_options(mbt_simbody PUBLIC $<$<COMPILE_LANGUAGE:CXX>:-UNDEBUG>)
target_include_directories(mbt_simbody PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_include_directories(mbt_simbody SYSTEM PUBLIC ${Simbody_INCLUDE_DIR})
target_link_libraries(mbt_simbody PUBLIC ${Simbody_LIBRARIES} mbdc_core m)
