# googletest_sources.cmake: GoogleTest built from its sources with the current
# toolchain, for the MinGW cross-build, where the build machine's GTest
# package (built for Linux) does not fit. Defines GTest::gtest_main.
#
# PACER_GOOGLETEST_SOURCE_DIR is the source tree (the folder holding
# googletest/ and googlemock/). By default it is searched as src/googletest
# under the build machine's prefixes, where Debian's libgtest-dev puts it;
# pass -DPACER_GOOGLETEST_SOURCE_DIR=... for another layout.
include_guard(GLOBAL)

find_path(PACER_GOOGLETEST_SOURCE_DIR
  NAMES googletest/include/gtest/gtest.h
  PATHS ${CMAKE_SYSTEM_PREFIX_PATH}
  PATH_SUFFIXES src/googletest
  NO_DEFAULT_PATH
  NO_CMAKE_FIND_ROOT_PATH   # host sources, not the target's sysroot
  DOC "GoogleTest's source tree, built with this toolchain (Debian: libgtest-dev)")
if(NOT PACER_GOOGLETEST_SOURCE_DIR)
  message(FATAL_ERROR "GoogleTest: no package for this toolchain and no sources found; "
    "install libgtest-dev or set PACER_GOOGLETEST_SOURCE_DIR (or PACER_BUILD_TESTS=OFF)")
endif()

set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
set(gtest_force_shared_crt ON CACHE BOOL "" FORCE)
add_subdirectory(${PACER_GOOGLETEST_SOURCE_DIR} ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
if(NOT TARGET GTest::gtest_main)
  add_library(GTest::gtest_main ALIAS gtest_main)
endif()
