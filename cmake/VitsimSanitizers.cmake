# Sanitizer and fuzzing builds (docs/build.md). Both are for a second build folder that `make test`
# configures (build-asan: clang, trainer off); the main build uses neither.
#   VITSIM_SANITIZE  everything compiled and linked with AddressSanitizer + UndefinedBehaviorSanitizer;
#                    any report aborts the program (-fno-sanitize-recover), so a test fails on it.
#   VITSIM_FUZZ      the libFuzzer targets of tests/fuzz (clang only); all code gets libFuzzer's
#                    coverage instrumentation (fuzzer-no-link), which the other programs ignore.
option(VITSIM_SANITIZE "Build with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
option(VITSIM_FUZZ "Build the libFuzzer targets (tests/fuzz; needs clang)" OFF)

if(VITSIM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
if(VITSIM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "vitsim: VITSIM_FUZZ needs clang (libFuzzer): configure with "
                        "CXX=clang++, e.g. `make asan` (scripts/install-deps installs clang).")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
