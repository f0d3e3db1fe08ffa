# toolchain-mingw64.cmake: cross-build pacer for 64-bit Windows with MinGW-w64
# (Debian: g++-mingw-w64-x86-64-posix) and run what it builds under Wine.
#
#   cmake --preset mingw      (CMakePresets.json: this file, into build-mingw/)
#
# tools/test-windows.sh does this, then runs the tests under Wine.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

# The -posix compilers: the -win32 ones have no std::thread or std::mutex.
set(_mingw x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${_mingw}-gcc-posix)
set(CMAKE_CXX_COMPILER ${_mingw}-g++-posix)
set(CMAKE_RC_COMPILER ${_mingw}-windres)

# Static libstdc++, libgcc and winpthread: the .exe files run with no MinGW
# DLLs next to them, on Windows and under Wine alike.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

# Libraries and headers come from the MinGW tree only; programs (the build
# tools) from the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/${_mingw})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Header-only packages of the build machine (CLI11 and nlohmann-json, for the
# bench) work for Windows too. Their CMake configs point at the build
# machine's include folder, and that folder ahead of MinGW's would swap
# glibc's C headers in. So the build folder gets a small tree of links holding
# only those packages, laid out as their configs expect
# (<prefix>/share/cmake/<pkg>, <prefix>/include/<dir>). They are looked for
# under PACER_MINGW_HOST_PREFIX, by default the prefix cmake itself runs from
# (Debian: /usr).
if(NOT PACER_MINGW_HOST_PREFIX)
  get_filename_component(PACER_MINGW_HOST_PREFIX "${CMAKE_ROOT}/../.." ABSOLUTE)
endif()
set(_host "${CMAKE_BINARY_DIR}/mingw-host")
foreach(_pair "CLI11:CLI" "nlohmann_json:nlohmann")
  string(REPLACE ":" ";" _pair "${_pair}")
  list(GET _pair 0 _package)
  list(GET _pair 1 _headers)
  set(_config "${PACER_MINGW_HOST_PREFIX}/share/cmake/${_package}")
  set(_include "${PACER_MINGW_HOST_PREFIX}/include/${_headers}")
  if(EXISTS ${_config} AND EXISTS ${_include})
    file(MAKE_DIRECTORY ${_host}/share/cmake ${_host}/include)
    if(NOT EXISTS ${_host}/share/cmake/${_package})
      file(CREATE_LINK ${_config} ${_host}/share/cmake/${_package} SYMBOLIC)
    endif()
    if(NOT EXISTS ${_host}/include/${_headers})
      file(CREATE_LINK ${_include} ${_host}/include/${_headers} SYMBOLIC)
    endif()
    set(${_package}_DIR ${_host}/share/cmake/${_package} CACHE PATH "${_package} (build machine's headers)")
  endif()
endforeach()

# Tests and tools run under Wine (ctest, gtest_discover_tests), through
# tools/wine-run.sh, which starts a program once more when Wine failed to
# start it at all.
find_program(PACER_WINE NAMES wine64 wine)
if(PACER_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/../tools/wine-run.sh ${PACER_WINE})
endif()
