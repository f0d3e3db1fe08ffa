# pacer_warnings.cmake: the build flags of pacer's own targets, as two
# INTERFACE targets that each first-party target links PRIVATE:
#   pacer_warnings    -Wall -Wextra (/W4 on MSVC); -Werror (/WX) with PACER_WERROR
#   pacer_sanitizers  -fsanitize=<PACER_SANITIZE> at compile and link time
# and, for the programs that open a window (the demo, the examples):
#   pacer_leak_check  under AddressSanitizer, leak_check.cpp; else nothing
# None reaches a consumer: the library links them through
# $<BUILD_INTERFACE:...>, so the installed package does not carry them.
# CMakePresets.json turns the two switches on; nothing sets CMAKE_CXX_FLAGS.
include_guard(GLOBAL)

option(PACER_WERROR "Treat warnings in pacer's own targets as errors" OFF)
set(PACER_SANITIZE "" CACHE STRING
  "Sanitizers for pacer's own targets, as -fsanitize= takes them (address,undefined or thread); empty for none")

add_library(pacer_warnings INTERFACE)
if(MSVC)
  target_compile_options(pacer_warnings INTERFACE /W4 $<$<BOOL:${PACER_WERROR}>:/WX>)
else()
  target_compile_options(pacer_warnings INTERFACE -Wall -Wextra $<$<BOOL:${PACER_WERROR}>:-Werror>)
endif()

add_library(pacer_sanitizers INTERFACE)
if(PACER_SANITIZE)
  if(MSVC)
    message(FATAL_ERROR "PACER_SANITIZE: the presets' sanitizers are for GCC and Clang")
  endif()
  # Any finding stops the test that hit it, with a stack trace.
  target_compile_options(pacer_sanitizers INTERFACE
    -fsanitize=${PACER_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(pacer_sanitizers INTERFACE -fsanitize=${PACER_SANITIZE})
endif()

add_library(pacer_leak_check INTERFACE)
if(PACER_SANITIZE MATCHES "address")
  target_sources(pacer_leak_check INTERFACE ${CMAKE_CURRENT_LIST_DIR}/leak_check.cpp)
endif()
