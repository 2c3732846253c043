# `cmake --install BUILD [--prefix DIR]` (MBDC_INSTALL, on in mbdc's own build; docs/cmake.md):
#   bin/mbdc                              the generator (when MBDC_GENERATOR)
#   lib/libmbrt.a, include/mbdc/mb.h      the runtime the generated <p>_model.c and <p>_check.c use
#   share/mbdc/templates/                 the built-in templates (compiled into mbdc), to copy and
#                                         change for --templates / TEMPLATES
#   lib/cmake/mbdc/                       the package: find_package(mbdc) gives mbdc_add_model(),
#                                         mbdc::mbdc (imported executable), mbdc::mbrt
#   lib/pkgconfig/mbdc-runtime.pc         the runtime for pkg-config
#   lib/python3.X/dist-packages/mbdc/     the Python package (docs/python.md; cmake/python.cmake:
#                                         MBDC_PYTHON_INSTALL_DIR)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MBDC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mbdc)
set(MBDC_TEMPLATES_DIR ${CMAKE_INSTALL_DATADIR}/mbdc/templates)

set(targets mbrt)
if(TARGET mbdc)
  list(APPEND targets mbdc)
endif()
install(TARGETS ${targets} EXPORT mbdcTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mbdc)
install(FILES ${PROJECT_SOURCE_DIR}/runtime/mb.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mbdc)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/templates/ DESTINATION ${MBDC_TEMPLATES_DIR})

install(EXPORT mbdcTargets NAMESPACE mbdc:: DESTINATION ${MBDC_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mbdcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mbdcConfig.cmake INSTALL_DESTINATION ${MBDC_CMAKE_DIR}
  PATH_VARS MBDC_TEMPLATES_DIR)
# 0.x: a new minor version may change the generated interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mbdcConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mbdcConfig.cmake ${PROJECT_BINARY_DIR}/mbdcConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/mbdc.cmake
        DESTINATION ${MBDC_CMAKE_DIR})

# pkg-config: the prefix relative to the .pc file, so the install can be moved (--prefix at
# install time, DESTDIR); absolute install directories stay as they are.
set(pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE ${pc_dir})
  set(MBDC_PC_PREFIX ${CMAKE_INSTALL_PREFIX})
else()
  file(RELATIVE_PATH rel /p/${pc_dir} /p)
  string(REGEX REPLACE "/$" "" rel "${rel}")
  set(MBDC_PC_PREFIX "\${pcfiledir}/${rel}")
endif()
foreach(dir LIBDIR INCLUDEDIR)
  set(MBDC_PC_${dir} ${CMAKE_INSTALL_${dir}})
  if(NOT IS_ABSOLUTE ${MBDC_PC_${dir}})
    set(MBDC_PC_${dir} "\${prefix}/${MBDC_PC_${dir}}")
  endif()
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/mbdc-runtime.pc.in
               ${PROJECT_BINARY_DIR}/mbdc-runtime.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mbdc-runtime.pc DESTINATION ${pc_dir})

# The Python package: its sources as they are (pure Python, nothing to build), where Debian's
# python3 finds them for the prefix /usr/local (docs/python.md).
include(${PROJECT_SOURCE_DIR}/cmake/python.cmake)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/mbdc/ DESTINATION ${MBDC_PYTHON_INSTALL_DIR}/mbdc
        FILES_MATCHING PATTERN "*.py")
