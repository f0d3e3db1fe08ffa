# install.cmake: install rules and the find_package(pacer CONFIG) package.
# Included by the top level when PACER_INSTALL is on. After
#   cmake --install build --prefix /some/prefix
# a project finds the library with
#   find_package(pacer CONFIG REQUIRED)       # CMAKE_PREFIX_PATH=/some/prefix
#   target_link_libraries(game PRIVATE pacer::pacer)
# exactly as it would use it through add_subdirectory (pacer::pacer is the
# alias there).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PACER_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/pacer")

# The installed target's include directory comes from the library's own
# $<INSTALL_INTERFACE:include>; its source-tree directory is a
# $<BUILD_INTERFACE:...>, so none of the source tree leaks into the export.
install(TARGETS pacer
  EXPORT pacerTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")

# The public headers only: pacer/src stays private.
install(DIRECTORY "${CMAKE_CURRENT_LIST_DIR}/../pacer/include/pacer"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.h")

install(EXPORT pacerTargets
  NAMESPACE pacer::
  DESTINATION "${PACER_CMAKE_DIR}")

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/pacerConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/pacerConfig.cmake"
  INSTALL_DESTINATION "${PACER_CMAKE_DIR}")

# Before 1.0 a minor release may change the API, so only 0.N.x versions match
# a request for 0.N.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/pacerConfigVersion.cmake"
  VERSION "${pacer_VERSION}"
  COMPATIBILITY SameMinorVersion)

install(FILES
  "${PROJECT_BINARY_DIR}/pacerConfig.cmake"
  "${PROJECT_BINARY_DIR}/pacerConfigVersion.cmake"
  DESTINATION "${PACER_CMAKE_DIR}")
