# Warnings and hardening, attached to targets through this interface library. Code is built
# -fPIC, not -fPIE, and linked -pie: Qt is built with protected symbols and requires -fPIC of
# code that uses it (with -fPIE, copy relocations of Qt's globals crash QApplication).
include(GNUInstallDirs)
add_library(sandbench_build_flags INTERFACE)
target_compile_options(sandbench_build_flags INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wnon-virtual-dtor
  -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual -Wnull-dereference -Wformat=2
  -fstack-protector-strong -fstack-clash-protection -fcf-protection -fPIC
  $<$<NOT:$<CONFIG:Debug>>:-D_FORTIFY_SOURCE=2>
  -D_GLIBCXX_ASSERTIONS)
target_link_options(sandbench_build_flags INTERFACE -pie -Wl,-z,relro,-z,now -Wl,-z,noexecstack)
# Each function and datum in a section of its own, and the linker drops what nothing uses: the
# CLI's code 4.1 → 3.3 MB (much of it from the static libstdc++). Smaller programs and package;
# a start maps only the pages it touches, so its time did not measurably change (BENCHMARKS.md).
target_compile_options(sandbench_build_flags INTERFACE -ffunction-sections -fdata-sections)
target_link_options(sandbench_build_flags INTERFACE -Wl,--gc-sections)
# CI builds with warnings as errors (scripts/build.sh with SANDBENCH_WERROR=1, set by .ci/run).
option(SANDBENCH_WERROR "Treat compiler warnings as errors" OFF)
if(SANDBENCH_WERROR)
  target_compile_options(sandbench_build_flags INTERFACE -Werror)
endif()
if(SANDBENCH_SANITIZE)
  target_compile_options(sandbench_build_flags INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(sandbench_build_flags INTERFACE -fsanitize=address,undefined)
endif()
