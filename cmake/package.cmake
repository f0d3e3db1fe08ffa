# package.cmake: Debian packages of the install (CPack's DEB generator),
# included by install.cmake. In a build configured with -DPACER_INSTALL=ON
#   cpack --config build/CPackConfig.cmake -B build/packages
# writes two:
#   libpacer-dev  the library, its headers, the CMake package and the .pc
#                 files (the install's "dev" component)
#   pacer-tools   pacer-run with its preload library and the Vulkan layer's
#                 manifest in the loader's explicit layer folder, and
#                 pacer-replay (the "tools" component)
# installed under /usr. tools/package.sh builds and checks them (lintian,
# dpkg -i, the installed files at work, removal).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pacer)
set(CPACK_PACKAGE_VENDOR "the pacer developers")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "pacer developers <pacer-dev@lists.pacer.invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL dev tools)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)          # NAME_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)           # Depends from the binaries (dpkg-shlibdeps)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)    # the tools' library is private (lib/pacer), not a shared library to link

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libpacer-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DESCRIPTION "game-loop frame pacer (development files)
pacer paces a game's frames to a target rate on a drift-free deadline grid,
by vsync, a precise timer, or the display's own reported clock, and says
why. This package holds the static library, its headers, the CMake package
(find_package(pacer)) and the pkg-config files.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME pacer-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_COMPONENT_TOOLS_DESCRIPTION "frame pacing for programs nobody rebuilt
pacer-run starts a game or any OpenGL or Vulkan program with pacer in it
(a GL preload and a Vulkan layer) and paces its presents to a steady
cadence: pacer-run --hz 60 -- PROGRAM. pacer-replay replays a recorded run
(a PresentMon or CapFrameX capture, or a trace) against pacer's strategies.")

# Each package's copyright file and changelogs, where Debian policy puts
# them: the project's CHANGELOG.md as changelog.gz, and a changelog.Debian.gz
# for the packaging, both compressed as dpkg's tools do (gzip -9n).
find_program(PACER_GZIP gzip)
set(PACER_DEB_DOC "${PROJECT_BINARY_DIR}/debian-doc")
string(TIMESTAMP PACER_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file("${CMAKE_CURRENT_LIST_DIR}/debian/changelog.Debian.in" "${PACER_DEB_DOC}/changelog.Debian" @ONLY)
if(PACER_GZIP)
  foreach(pair "${PACER_DEB_DOC}/changelog.Debian" "${PROJECT_SOURCE_DIR}/CHANGELOG.md")
    get_filename_component(name "${pair}" NAME)
    set(out "${PACER_DEB_DOC}/${name}.gz")
    if(name STREQUAL "CHANGELOG.md")
      set(out "${PACER_DEB_DOC}/changelog.gz")
    endif()
    execute_process(COMMAND "${PACER_GZIP}" -9nc "${pair}" OUTPUT_FILE "${out}" RESULT_VARIABLE gzipped)
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/CHANGELOG.md")
  foreach(component dev tools)
    string(TOUPPER "${component}" upper)
    install(FILES "${CMAKE_CURRENT_LIST_DIR}/debian/copyright" "${PACER_DEB_DOC}/changelog.gz"
      "${PACER_DEB_DOC}/changelog.Debian.gz"
      DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/${CPACK_DEBIAN_${upper}_PACKAGE_NAME}" COMPONENT ${component})
  endforeach()
endif()

include(CPack)
