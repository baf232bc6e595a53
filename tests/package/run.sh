#!/usr/bin/env bash
# reel as a package (issue 12), from the outside, as an app's build would see it.
#
#   run.sh install      BUILD SOURCE WORK VERSION CXX [SANITIZE]
#     installs BUILD (reel's own build tree, already built) into WORK/prefix with `cmake --install`, then
#      1. the layout: libraries, public headers (and nothing of the internal ones), tools, the CMake package,
#         reel.pc;
#      2. no installed header names volk, and no installed archive has a global vk*/volk* symbol;
#      3. every installed header compiles alone against WORK/prefix/include only, warning-free, and pulls
#         in nothing but other installed headers and the C++ standard library;
#      4. find_package(reel 9.0) and find_package(reel 0.1) fail with CMake's version message;
#      5. pkg-config: a program calling into every archive links from `pkg-config --static --libs reel`;
#      6. examples/ configures with CMAKE_PREFIX_PATH=WORK/prefix, builds, renders (REEL_VALIDATE and the
#         device come from the environment), captures two frames and writes their images; the installed
#         `reel` replays the capture, and `reel compare` finds the images equal, bit for bit;
#      7. `reel --version` and the trace's header carry VERSION, the project() version.
#   run.sh subdirectory BUILD SOURCE WORK VERSION CXX [SANITIZE]
#     configures tests/package/subdirectory (a parent project that add_subdirectory()s SOURCE) in
#     WORK/parent, builds its app against reel::core + reel::vulkan, and runs it.
#
# SANITIZE is reel's REEL_SANITIZE: an instrumented reel needs the same flags in the app that links it.
# Prints one line per step; on a failure, what failed and where its output is, and exits 1.
set -uo pipefail

check=$1 build=$2 source=$3 work=$4 version=$5 cxx=$6 sanitize=${7:-}
prefix=$work/prefix
logs=$work/logs
san_flags=""
case "$sanitize" in
  address) san_flags="-fsanitize=address,undefined -fno-omit-frame-pointer" ;;
  thread) san_flags="-fsanitize=thread" ;;
esac

fail() {
  echo "package: FAILED: $*" >&2
  exit 1
}
step() { echo "package: $*"; }
# run LOG command...: runs the command with its output in $logs/LOG; fails the test when it fails.
run() {
  local log=$logs/$1
  shift
  "$@" >"$log" 2>&1 || {
    local status=$?
    tail -n 40 "$log" >&2
    fail "$* (exit $status; output in $log)"
  }
}

rm -rf "$work"
mkdir -p "$logs"

check_install() {
  step "cmake --install $build --prefix $prefix"
  run install.log cmake --install "$build" --prefix "$prefix"

  step "1. layout"
  local f
  for f in lib/cmake/reel/reelConfig.cmake lib/cmake/reel/reelConfigVersion.cmake lib/cmake/reel/reelTargets.cmake \
    lib/pkgconfig/reel.pc bin/reel bin/reel-sample include/reel/reel.h include/reel/runtime/renderer.h \
    include/reel/runtime/commands.inc include/reel/runtime/detail/virtual_arena.h \
    include/reel/vulkan/vulkan_device.h include/reel/capture/capture.h include/reel/trace/reader.h \
    include/reel/replay/session.h include/reel/image/image.h include/reel/json/json.h; do
    [ -f "$prefix/$f" ] || fail "$prefix/$f was not installed"
  done
  for f in core vulkan capture trace replay image; do
    [ -f "$prefix/lib/libreel_$f.a" ] || fail "$prefix/lib/libreel_$f.a was not installed"
  done
  # reel-viewer goes with the tools when this build has it.
  if [ -x "$build/viewer/reel-viewer" ]; then
    [ -x "$prefix/bin/reel-viewer" ] || fail "reel-viewer was built but not installed"
  fi
  # The public folders only: runtime/internal (radix sort, CPU clocks), vulkan/src and trace/internal (the
  # generated FlatBuffers code, the container) stay home.
  local folders
  folders=$(cd "$prefix/include" && find . -type d | sort | tr '\n' ' ')
  [ "$folders" = ". ./reel ./reel/capture ./reel/image ./reel/json ./reel/replay ./reel/runtime ./reel/runtime/detail ./reel/trace ./reel/vulkan " ] ||
    fail "installed include folders are [$folders], not the public ones"
  for f in radix_sort.h cpu_time.h vk.h; do
    [ -z "$(find "$prefix/include" -name "$f")" ] || fail "the internal header $f was installed"
  done

  step "2. no volk in the headers, no global vk*/volk* symbol in the archives"
  if grep -rli volk "$prefix/include" >"$logs/volk.txt"; then
    fail "installed headers name volk: $(tr '\n' ' ' <"$logs/volk.txt")"
  fi
  local symbols=$logs/symbols.txt
  for f in "$prefix"/lib/*.a; do
    nm -g "$f"
  done 2>/dev/null | awk 'NF >= 2 { print $NF }' | sort -u >"$symbols"
  # volk is inside libreel_vulkan.a under reel's own names; without them nm saw nothing to check.
  [ "$(grep -c '^reel_volk_vk' "$symbols")" -gt 100 ] || fail "nm found no reel_volk_vk* symbol: volk's code is not where it was expected"
  if grep -E '^(vk|volk)[A-Za-z0-9_]*$' "$symbols" >"$logs/vk-symbols.txt"; then
    fail "the installed archives have global Vulkan loader symbols: $(head -5 "$logs/vk-symbols.txt" | tr '\n' ' ')"
  fi

  step "3. every installed header compiles alone against $prefix/include"
  # The C++ standard library's own files, as this compiler finds them (libstdc++'s bits/stdc++.h
  # includes every standard header, C++20's among them).
  local std_files=$work/std-files.txt
  printf '#include <bits/stdc++.h>\n' | "$cxx" -std=c++20 -fsyntax-only -H -x c++ - 2>&1 >/dev/null |
    sed -n 's/^\.\+ //p' | xargs realpath -e | sort -u >"$std_files"
  [ -s "$std_files" ] || fail "could not list the standard library's headers with $cxx -H"
  local header headers=0
  while IFS= read -r header; do
    headers=$((headers + 1))
    local log=$logs/header-${header//\//_}.log
    printf '#include <%s>\n' "$header" |
      "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -H -I"$prefix/include" -x c++ - >"$log" 2>&1 ||
      {
        grep -v '^\.' "$log" | head -20 >&2
        fail "<$header> does not compile alone against $prefix/include (output in $log)"
      }
    local outside
    outside=$(sed -n 's/^\.\+ //p' "$log" | xargs realpath -e | sort -u | grep -v "^$(realpath "$prefix/include")/" |
      comm -23 - "$std_files")
    [ -z "$outside" ] || fail "<$header> includes files that are neither installed nor the standard library's: $outside"
  done < <(cd "$prefix/include" && find reel -name '*.h' | sort)
  [ "$headers" -gt 20 ] || fail "only $headers headers were checked"

  step "4. find_package(reel 9.0) and find_package(reel 0.1) fail with CMake's version message"
  local wanted
  for wanted in 9.0 0.1; do
    local dir=$work/version-$wanted
    mkdir -p "$dir"
    printf 'cmake_minimum_required(VERSION 3.25)\nproject(version_check LANGUAGES CXX)\nfind_package(reel %s CONFIG REQUIRED)\n' \
      "$wanted" >"$dir/CMakeLists.txt"
    if cmake -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$prefix" >"$logs/version-$wanted.log" 2>&1; then
      fail "find_package(reel $wanted) succeeded against reel $version"
    fi
    # CMake wraps long lines of its message; join them before looking.
    local message
    message=$(tr -s ' \n' ' ' <"$logs/version-$wanted.log")
    [[ $message == *"compatible with requested version \"$wanted\""* && $message == *"version: $version"* ]] ||
      fail "find_package(reel $wanted) failed without CMake's version message (output in $logs/version-$wanted.log)"
  done

  step "5. pkg-config"
  local pc=(env PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config)
  [ "$("${pc[@]}" --modversion reel)" = "$version" ] || fail "pkg-config --modversion reel is not $version"
  local flags
  flags=$("${pc[@]}" --cflags --static --libs reel) || fail "pkg-config --cflags --static --libs reel"
  # shellcheck disable=SC2086 # the flags are a list of words
  run pkgconfig-build.log "$cxx" -std=c++20 $san_flags "$source/tests/package/pkgconfig_app.cpp" $flags \
    -o "$work/pkgconfig_app"
  mkdir -p "$work/pkgconfig-out"
  run pkgconfig-run.log "$work/pkgconfig_app" "$work/pkgconfig-out"

  step "6. examples/ against the installed package: build, render, capture, replay, compare"
  local example=$work/example
  run example-configure.log cmake -S "$source/examples" -B "$example" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_COMPILE_WARNING_AS_ERROR=ON -DCMAKE_CXX_FLAGS="$san_flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$san_flags"
  # The package it found is the one just installed, not another reel on this machine.
  grep -qx "reel_DIR:PATH=$prefix/lib/cmake/reel" "$example/CMakeCache.txt" ||
    fail "examples/ found reel elsewhere: $(grep '^reel_DIR' "$example/CMakeCache.txt")"
  run example-build.log cmake --build "$example" -j2
  mkdir -p "$work/run"
  run example-run.log "$example/reel-example" --capture "$work/run/example.reel" --out "$work/run/direct"
  for f in frame_1.png frame_2.png; do
    [ -f "$work/run/direct/$f" ] || fail "reel-example wrote no $f"
  done
  run replay.log "$prefix/bin/reel" replay "$work/run/example.reel" --out "$work/run/replayed"
  run compare.log "$prefix/bin/reel" compare "$work/run/replayed" "$work/run/direct" --threshold 0
  grep -q "^match: 0 of 2 images differ" "$logs/compare.log" || fail "reel compare did not compare two images"

  step "7. the version: $version"
  run version.log "$prefix/bin/reel" --version
  grep -qx "reel $version" "$logs/version.log" || fail "reel --version says '$(cat "$logs/version.log")'"
  run info.log "$prefix/bin/reel" info "$work/run/example.reel"
  grep -q "written by reel $version)" "$logs/info.log" || fail "the trace was not written by reel $version (see $logs/info.log)"
  step "passed"
}

check_subdirectory() {
  local parent=$work/parent
  step "add_subdirectory($source) from a parent project, the tools off by default"
  run parent-configure.log cmake -S "$source/tests/package/subdirectory" -B "$parent" -G Ninja \
    -DREEL_SOURCE_DIR="$source" -DCMAKE_CXX_COMPILER="$cxx"
  grep "reel as a subproject" "$logs/parent-configure.log"
  run parent-build.log cmake --build "$parent" -j2 --target parent_app
  run parent-run.log "$parent/parent_app"
  cat "$logs/parent-run.log"
  step "passed"
}

case "$check" in
  install) check_install ;;
  subdirectory) check_subdirectory ;;
  *) fail "unknown check '$check' (install, subdirectory)" ;;
esac
