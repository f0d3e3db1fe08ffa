# install.cmake: install rules, the find_package(pacer CONFIG) package and
# pacer.pc for pkg-config.
# Included by the top level when PACER_INSTALL is on. After
#   cmake --install build --prefix /some/prefix
# a project finds the library with
#   find_package(pacer CONFIG REQUIRED)       # CMAKE_PREFIX_PATH=/some/prefix
#   target_link_libraries(game PRIVATE pacer::pacer)
# exactly as it would use it through add_subdirectory (pacer::pacer is the
# alias there).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Everything here is the library for developers: the "dev" component, which
# CPack packs as libpacer-dev (cmake/package.cmake). pacer-run and
# pacer-replay install as "tools".
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME dev)

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
install(FILES "${PROJECT_BINARY_DIR}/pacer/include/pacer/version.h" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/pacer")

install(EXPORT pacerTargets
  NAMESPACE pacer::
  DESTINATION "${PACER_CMAKE_DIR}")

# The backends that were built (pacer/backends), one export set each, loaded
# by pacerConfig.cmake for find_package(pacer CONFIG COMPONENTS glfw ...).
# pacer::backend_support is what the GLFW and SDL2 backends share.
foreach(backend wayland x11 backend_support glfw sdl2 vulkan)
  if(TARGET pacer_${backend})
    string(REPLACE "_s" "S" set_name "${backend}")   # backend_support -> backendSupport
    string(SUBSTRING "${set_name}" 0 1 first)
    string(TOUPPER "${first}" first)
    string(SUBSTRING "${set_name}" 1 -1 rest)
    set(set_name "pacer${first}${rest}Targets")
    install(TARGETS pacer_${backend} EXPORT ${set_name}
      ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
      LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
    install(EXPORT ${set_name} NAMESPACE pacer:: DESTINATION "${PACER_CMAKE_DIR}")
  endif()
endforeach()
foreach(backend wayland x11 glfw sdl2 vulkan)
  if(TARGET pacer_${backend})
    install(FILES "${CMAKE_CURRENT_LIST_DIR}/../pacer/backends/include/pacer/backends/${backend}.h"
      DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/pacer/backends")
  endif()
endforeach()
if(TARGET pacer_backend_support)
  install(FILES "${CMAKE_CURRENT_LIST_DIR}/../pacer/backends/include/pacer/backends/window_host.h"
    DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/pacer/backends")
endif()

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/pacerConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/pacerConfig.cmake"
  INSTALL_DESTINATION "${PACER_CMAKE_DIR}")

# From 1.0 on only a major release may break the API: any 1.x answers a
# request for 1.N with N at most x.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/pacerConfigVersion.cmake"
  VERSION "${pacer_VERSION}"
  COMPATIBILITY SameMajorVersion)

install(FILES
  "${PROJECT_BINARY_DIR}/pacerConfig.cmake"
  "${PROJECT_BINARY_DIR}/pacerConfigVersion.cmake"
  DESTINATION "${PACER_CMAKE_DIR}")

# Writes IN_FILE as NAME.pc at install time, so that its prefix is the one
# installed to (cmake --install --prefix), not the one configured; ARGN are
# "VARIABLE=value" pairs for its @VARIABLE@s beside the prefix and the dirs.
set(PACER_PC_TEMPLATE_DIR "${CMAKE_CURRENT_LIST_DIR}")
function(pacer_install_pc name in_file)
  set(sets "")
  foreach(pair IN LISTS ARGN)
    string(FIND "${pair}" "=" at)
    string(SUBSTRING "${pair}" 0 ${at} variable)
    math(EXPR after "${at} + 1")
    string(SUBSTRING "${pair}" ${after} -1 value)
    string(APPEND sets "set(${variable} \"${value}\")\n")
  endforeach()
  install(CODE "
    set(PACER_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    set(CMAKE_INSTALL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
    set(CMAKE_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
    set(PROJECT_VERSION \"${PROJECT_VERSION}\")
    ${sets}
    configure_file(\"${PACER_PC_TEMPLATE_DIR}/${in_file}\" \"${PROJECT_BINARY_DIR}/${name}.pc\" @ONLY)")
  install(FILES "${PROJECT_BINARY_DIR}/${name}.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endfunction()

# pacer.pc, for builds without CMake:
#   c++ -std=c++17 game.cpp $(pkg-config --cflags --libs pacer)
# The library is static, so Libs carries what it links: the threads library,
# and winmm on Windows.
find_package(Threads REQUIRED)
set(PACER_PC_LIBS "${CMAKE_THREAD_LIBS_INIT}")
if(NOT PACER_PC_LIBS AND NOT MSVC)
  set(PACER_PC_LIBS "-pthread")   # glibc >= 2.34 needs no library, -pthread says so portably
endif()
if(WIN32)
  string(APPEND PACER_PC_LIBS " -lwinmm")
endif()
pacer_install_pc(pacer pacer.pc.in "PACER_PC_LIBS=${PACER_PC_LIBS}")


# One .pc per backend (pacer-glfw.pc, pacer-sdl2.pc, pacer-wayland.pc,
# pacer-x11.pc, pacer-vulkan.pc):
#   c++ -std=c++17 game.cpp $(pkg-config --cflags --libs pacer-glfw)
# The libraries are static, so each names what it links: its own archives,
# then (Requires) pacer, the window system and, where built, wayland-client.
set(PACER_PC_WAYLAND "")
if(TARGET pacer_wayland)
  set(PACER_PC_WAYLAND " -lpacer_wayland")
endif()
set(PACER_PC_X11 "")
if(TARGET pacer_x11)
  set(PACER_PC_X11 " -lpacer_x11")
endif()
set(pc_wayland_libs "-lpacer_wayland")
set(pc_wayland_requires "pacer wayland-client")
set(pc_dl "")
if(CMAKE_DL_LIBS)
  # glfw.cpp looks up GLFW's Wayland functions with dlsym, x11.cpp libxcb's
  set(pc_dl " -l${CMAKE_DL_LIBS}")
endif()
set(pc_x11_libs "-lpacer_x11${pc_dl}")
set(pc_x11_requires "pacer")
set(pc_glfw_libs "-lpacer_glfw -lpacer_backend_support${PACER_PC_WAYLAND}${PACER_PC_X11}${pc_dl}")
set(pc_glfw_requires "pacer glfw3")
set(pc_sdl2_libs "-lpacer_sdl2 -lpacer_backend_support${PACER_PC_WAYLAND}${PACER_PC_X11}${pc_dl}")
set(pc_sdl2_requires "pacer sdl2")
set(pc_vulkan_libs "-lpacer_vulkan -lpacer_backend_support${PACER_PC_WAYLAND}${PACER_PC_X11}${pc_dl}")
set(pc_vulkan_requires "pacer vulkan")
foreach(backend wayland x11 glfw sdl2 vulkan)
  if(NOT TARGET pacer_${backend})
    continue()
  endif()
  set(requires "${pc_${backend}_requires}")
  if(TARGET pacer_wayland AND NOT backend MATCHES "^(wayland|x11)$")
    string(APPEND requires " wayland-client")
  endif()
  pacer_install_pc(pacer-${backend} pacer-backend.pc.in "PACER_PC_BACKEND=${backend}"
    "PACER_PC_REQUIRES=${requires}" "PACER_PC_BACKEND_LIBS=${pc_${backend}_libs}")
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/package.cmake)
