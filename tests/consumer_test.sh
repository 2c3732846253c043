#!/usr/bin/env bash
# mbdc from a user's CMake project (tests/consumer/, docs/cmake.md):
#   install   `cmake --install` of this build into a temporary prefix; the consumer through
#             find_package(mbdc): its harness and program run, NO_CHECK leaves no harness, the
#             installed mbdc generates; pkg-config's mbdc-runtime builds the harness by hand;
#             touching a model reruns mbdc but recompiles nothing, a new prefix deletes the old
#             files (Make, and Ninja when installed);
#             a cross build's MBDC_EXECUTABLE generates, its harness is built but not a test
#   subdir    the consumer through add_subdirectory(mbdc EXCLUDE_FROM_ALL): only its own test in
#             ctest, no -Werror in any compile command, no CMAKE_BUILD_TYPE written in its cache;
#             with MBDC_EXECUTABLE the generator is not built
# usage: consumer_test.sh install|subdir BUILD_DIR SOURCE_DIR C_COMPILER [C_FLAGS]
set -u
mode=$1
build=$2
src=$3
cc=$4
flags=${5:-}
tmp=$(mktemp -d)
trap '[ -n "${MBDC_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
# run LOG COMMAND...: the command's output to LOG, shown on failure
run() {
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    echo "FAIL: $*"
    tail -30 "$log" | sed 's/^/  | /'
    exit 1
  fi
}
mkdir -p "$tmp/models"
cp "$src/examples/double_pendulum.mbd" "$src/examples/cart_pole.mbd" "$tmp/models/"
# configure DIR [CMAKE OPTION...]: the consumer in DIR, with this build's compiler and flags
configure() {
  local dir=$1
  shift
  run "$tmp/configure.log" cmake -S "$src/tests/consumer" -B "$dir" -DMODEL_DIR="$tmp/models" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" "$@"
}
# builds_and_runs DIR: build, the harness through ctest, the program
builds_and_runs() {
  run "$tmp/build.log" cmake --build "$1" -j2
  run "$tmp/ctest.log" ctest --test-dir "$1" --output-on-failure
  run "$tmp/app.log" "$1/app"
}
mtime() { stat -c %y "$1"; }

# touch_and_rename DIR: touching the model reruns mbdc and recompiles nothing; changing it
# recompiles; a new PREFIX deletes the pendulum's old files and keeps the cart's.
touch_and_rename() {
  local dir=$1 obj before
  obj=$(find "$dir" -name 'double_pendulum_dynamics.c.o')
  [ -f "$obj" ] || { bad "$dir: no object of double_pendulum_dynamics.c"; return; }
  before=$(mtime "$obj")
  sleep 1
  touch "$tmp/models/double_pendulum.mbd"
  run "$tmp/build.log" cmake --build "$dir" -j2
  grep -q "mbdc: generating pendulum" "$tmp/build.log" || bad "$dir: touching the model did not rerun mbdc"
  [ "$(mtime "$obj")" = "$before" ] || bad "$dir: touching the model recompiled the unchanged dynamics"
  sleep 1
  sed -i 's/^const m = 1.0;/const m = 1.5;/' "$tmp/models/double_pendulum.mbd"
  run "$tmp/build.log" cmake --build "$dir" -j2
  [ "$(mtime "$obj")" != "$before" ] || bad "$dir: changing the model did not recompile the dynamics"
  cp "$src/examples/double_pendulum.mbd" "$tmp/models/"

  configure "$dir" -DPENDULUM_PREFIX=pend
  builds_and_runs "$dir"
  [ -z "$(ls "$dir"/gen/double_pendulum_* 2>/dev/null)" ] || bad "$dir: the old prefix's files are left"
  [ -f "$dir/gen/pend_dynamics.c" ] || bad "$dir: no pend_dynamics.c"
  [ -f "$dir/gen/cart_pole_dynamics.c" ] || bad "$dir: the other model's files were deleted"
}

if [ "$mode" = install ]; then
  prefix=$tmp/prefix
  run "$tmp/install.log" cmake --install "$build" --prefix "$prefix"
  for f in bin/mbdc lib/libmbrt.a include/mbdc/mb.h share/mbdc/templates/algorithms/rnea.lua \
    share/mbdc/templates/c/header.lua lib/cmake/mbdc/mbdcConfig.cmake \
    lib/cmake/mbdc/mbdcConfigVersion.cmake lib/cmake/mbdc/mbdcTargets.cmake \
    lib/cmake/mbdc/mbdc.cmake lib/pkgconfig/mbdc-runtime.pc; do
    [ -e "$prefix/$f" ] || bad "not installed: $f"
  done
  configure "$tmp/b" -DCMAKE_PREFIX_PATH="$prefix"
  builds_and_runs "$tmp/b"
  grep -rqF "$prefix/bin/mbdc" "$tmp/b/CMakeFiles" || bad "the installed mbdc does not generate"
  grep -q "pendulum_check" "$tmp/ctest.log" || bad "the harness did not run"
  [ ! -e "$tmp/b/cart_check" ] && ! grep -q cart_check "$tmp/ctest.log" || bad "NO_CHECK built a harness"
  # pkg-config: the harness by hand, as README.md shows it
  export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
  pc=$(pkg-config --cflags --libs mbdc-runtime) || bad "pkg-config mbdc-runtime"
  g=$tmp/b/gen
  # shellcheck disable=SC2086 # pc and flags are lists of options
  run "$tmp/cc.log" "$cc" -std=c99 $flags -I"$g" "$g"/double_pendulum_check.c \
    "$g"/double_pendulum_model.c "$g"/double_pendulum_dynamics.c $pc -o "$tmp/check_pc"
  run "$tmp/check_pc.log" "$tmp/check_pc"
  touch_and_rename "$tmp/b"
  # a cross build (CMAKE_SYSTEM_NAME set) with a host mbdc: the harness built, no test
  configure "$tmp/x" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_SYSTEM_NAME=Linux \
    -DMBDC_EXECUTABLE="$build/generator/mbdc"
  grep -q "cross-compiling without CMAKE_CROSSCOMPILING_EMULATOR" "$tmp/configure.log" ||
    bad "cross build: configure says nothing of the harness"
  ctest --test-dir "$tmp/x" -N | grep -q "Total Tests: 0" || bad "cross build: a test was added"
  grep -rqF "$build/generator/mbdc" "$tmp/x/CMakeFiles" || bad "MBDC_EXECUTABLE is not what generates"
  if command -v ninja >/dev/null; then
    cp "$src/examples/double_pendulum.mbd" "$tmp/models/"
    configure "$tmp/n" -G Ninja -DCMAKE_PREFIX_PATH="$prefix"
    builds_and_runs "$tmp/n"
    touch_and_rename "$tmp/n"
  else
    echo "ninja not installed: the Ninja generator is not tested"
  fi
elif [ "$mode" = subdir ]; then
  configure "$tmp/b" -DMBDC_SOURCE_DIR="$src" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
  grep -q '^CMAKE_BUILD_TYPE:STRING=$' "$tmp/b/CMakeCache.txt" ||
    bad "CMAKE_BUILD_TYPE written into the consumer's cache: $(grep '^CMAKE_BUILD_TYPE' "$tmp/b/CMakeCache.txt")"
  builds_and_runs "$tmp/b"
  tests=$(ctest --test-dir "$tmp/b" -N | grep -E '^ *Test +#')
  [ "$(echo "$tests" | wc -l)" -eq 1 ] && echo "$tests" | grep -q pendulum_check ||
    bad "ctest lists more than the consumer's own test:$(echo; echo "$tests" | head)"
  cmds=$tmp/b/compile_commands.json
  grep -q 'double_pendulum_dynamics.c' "$cmds" && grep -q 'mbdc_core.dir' "$cmds" ||
    bad "compile_commands.json lacks the generated library or mbdc's sources"
  ! grep -q -- '-Werror' "$cmds" || bad "-Werror in: $(grep -- '-Werror' "$cmds" | head -3)"
  ! grep -rlq --include='*.make' -e -Werror "$tmp/b" ||
    bad "-Werror in: $(grep -rl --include='*.make' -e -Werror "$tmp/b" | head -3)"
  grep -q -- '-pedantic' "$cmds" || bad "the generated library's warnings are gone"
  # with MBDC_EXECUTABLE (a host mbdc of a cross build) only the runtime is built
  configure "$tmp/e" -DMBDC_SOURCE_DIR="$src" -DMBDC_EXECUTABLE="$build/generator/mbdc"
  builds_and_runs "$tmp/e"
  grep -q '^MBDC_GENERATOR:BOOL=OFF' "$tmp/e/CMakeCache.txt" && [ ! -d "$tmp/e/mbdc/generator" ] ||
    bad "MBDC_EXECUTABLE given, the generator is still configured"
  grep -rqF "$build/generator/mbdc" "$tmp/e/CMakeFiles" || bad "MBDC_EXECUTABLE is not what generates"
else
  echo "usage: consumer_test.sh install|subdir BUILD_DIR SOURCE_DIR C_COMPILER [C_FLAGS]" >&2
  exit 2
fi
[ "$fail" -eq 0 ] && echo "consumer_test $mode: ok"
exit $((fail > 0))
