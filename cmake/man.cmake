# man.cmake: a tool's man page, written at build time by help2man from the
# tool's own --help and --version, with the sections --help has no room for
# (man/TOOL.h2m: the environment, examples, exit status) around them. One
# source for the flags: the man page cannot drift from --help, and
# tests/version checks docs/pacer-run.md's flag table against --help too. Built
# and installed (gzipped, into the tools package) where help2man is found.
find_program(PACER_HELP2MAN help2man)
find_program(PACER_MAN_GZIP gzip)

function(pacer_man_page target summary)
  if(NOT PACER_HELP2MAN OR NOT PACER_MAN_GZIP OR CMAKE_CROSSCOMPILING)
    return()
  endif()
  include(GNUInstallDirs)
  set(page ${CMAKE_CURRENT_BINARY_DIR}/${target}.1)
  set(include ${PROJECT_SOURCE_DIR}/man/${target}.h2m)
  add_custom_command(OUTPUT ${page}.gz
    COMMAND ${PACER_HELP2MAN} --no-info --no-discard-stderr --section 1 --name ${summary}
            --include ${include} --output ${page} $<TARGET_FILE:${target}>
    COMMAND ${PACER_MAN_GZIP} -9nf ${page}
    DEPENDS ${target} ${include}
    COMMENT "Writing ${target}'s man page from its --help (help2man)"
    VERBATIM)
  add_custom_target(${target}-man ALL DEPENDS ${page}.gz)
  install(FILES ${page}.gz DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT tools)
endfunction()
