#!/usr/bin/env bash
# What mbdc writes, against hostile input and a hostile machine (docs/security-outputs.md):
#   injection  paths, file names, the command line and recipe summaries reach generated text only
#              escaped: golden banners (tests/golden_outputs/), the files compile with -Werror and
#              their harness passes; a URDF file name cannot add statements to an imported .mbd
#   names      a 28..63-character prefix, reserved prefixes (mb, mbs_, MB_...), the harness of any
#              subset of functions (only user recipes, each built-in alone) compiles with -Werror
#   atomic     a full disk (a small tmpfs when one can be mounted, and an injected failure) and a
#              kill -9 at every step leave the old set or the new one, never a mix that compiles;
#              the next run finishes or removes what a killed run left
#   modes      new files follow the umask, a regenerated file keeps its mode
#   targets    -o naming a file, a device (/dev/null), a directory or a symlink is refused
# usage: outputs_test.sh MBDC SOURCE_DIR RUNTIME_LIB [CC]
set -u
mbdc=$1 src=$2 rtlib=$3 cc=${4:-cc}
mbdc=$(cd "$(dirname "$mbdc")" && pwd)/$(basename "$mbdc")
src=$(cd "$src" && pwd)
rtlib=$(cd "$(dirname "$rtlib")" && pwd)/$(basename "$rtlib")
tmp=$(mktemp -d)
mounted=""
cleanup() {
  [ -n "$mounted" ] && umount "$mounted" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { # expect STATUS DESCRIPTION -- COMMAND...
  local want=$1 what=$2
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then ok; else
    bad "$what: exit $got, expected $want"
    sed 's/^/  | /' "$tmp/err" | head -20
  fi
}
check_grep() { # check_grep DESCRIPTION PATTERN FILE
  if grep -q -- "$2" "$3"; then ok; else
    bad "$1: no '$2' in:"
    sed 's/^/  | /' "$3" | head -20
  fi
}
strict=(-std=c99 -Wall -Wextra -Werror -pedantic)
# build DIR EXE: compile a generated set (and the harness) strictly; 0 when it compiles
build() { "$cc" "${strict[@]}" -O0 -I"$src/runtime" -I"$1" "$1"/*.c "$rtlib" -lm -o "$2" 2>"$tmp/cc.err"; }
# harness DESCRIPTION DIR: compile the set strictly and run its harness
harness() {
  if build "$2" "$tmp/harness" && "$tmp/harness" >"$tmp/harness.out" 2>&1 &&
     grep -q ': ok: ' "$tmp/harness.out"; then ok; else
    bad "$1: the generated files do not compile strictly or the harness fails"
    cat "$tmp/cc.err" "$tmp/harness.out" 2>/dev/null | head -20 | sed 's/^/  | /'
  fi
}
same_file() { # same_file DESCRIPTION GOT GOLDEN
  if cmp -s "$2" "$3"; then ok; else
    bad "$1: differs from $3:"
    diff "$3" "$2" | head -20 | sed 's/^/  | /'
  fi
}
gold=$src/tests/golden_outputs

# ---- injection -----------------------------------------------------------------------------
# A directory that ends the banner's comment and defines cos as sin (the issue's reproduction).
mkdir -p "$tmp/inj" && cd "$tmp/inj" || exit 1
d=$'q/x*/\n#define cos sin\n/*'
mkdir -p "$d" && cp "$src/examples/double_pendulum.mbd" "$d/"
expect 0 "generate from a hostile directory" -- "$mbdc" generate "$d/double_pendulum.mbd" -o out
for f in out/*; do
  if grep -q '^#define cos' "$f"; then bad "$f: the path's #define reached the code"; else ok; fi
done
head -6 out/double_pendulum_dynamics.c >"$tmp/banner"
same_file "banner of a hostile path" "$tmp/banner" "$gold/banner_path.golden"
harness "hostile path" out

# The command line: -o with a quote, an escape sequence, '??' and a non-UTF-8 byte; a templates
# directory whose name ends a comment; a recipe whose summary ends its comment.
mkdir -p "$tmp/cmd/t*/algorithms" && cd "$tmp/cmd" || exit 1
cp "$src/examples/cart_pole.mbd" .
cat >"t*/algorithms/my_fn.lua" <<'EOF'
return {
  name = "my_fn", summary = "twice q */\n#define cos sin\n/* ??/", returns = "void",
  params = {{name = "q", role = "q"}, {name = "out", role = "out_nv"}},
  build = function(model)
    for i = 0, model.nv - 1 do sym.output("out", i, 2 * sym.input("q", i)) end
  end,
}
EOF
o=$'o u\e[31m/it\'s??\xff'
expect 0 "generate with a hostile command line" -- "$mbdc" generate cart_pole.mbd -o "$o" \
  --templates 't*/' --functions rnea,my_fn
head -6 "$o/cart_pole_check.c" >"$tmp/banner"
same_file "banner of a hostile command line" "$tmp/banner" "$gold/banner_command.golden"
for f in "$o"/*; do
  if grep -q '^#define cos' "$f"; then bad "$f: the summary's #define reached the code"; else ok; fi
done
check_grep "the summary, escaped" 'twice q \\x2a/\\x0a#define cos sin\\x0a\\x2f\* \\x3f?/ \*/' \
  "$o/cart_pole_dynamics.h"
harness "hostile command line and summary" "$o"

# mbdc import: a URDF file name with newlines cannot add statements to the written .mbd.
mkdir -p "$tmp/imp" && cd "$tmp/imp" || exit 1
u=$'evil\nbody injected { mass 1; }\n#.urdf'
cat >"$u" <<'EOF'
<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint>
</robot>
EOF
expect 0 "import a hostile file name" -- "$mbdc" import "$u" -o r.mbd
head -1 r.mbd >"$tmp/line"
same_file "import comment of a hostile file name" "$tmp/line" "$gold/import_name.golden"
expect 0 "the imported .mbd reads back" -- "$mbdc" check r.mbd
if grep -q injected "$tmp/out"; then bad "the file name added a body to the model"; else ok; fi
cd "$tmp" || exit 1

# ---- names ---------------------------------------------------------------------------------
cp="$src/examples/cart_pole.mbd"
p63=p23456789_123456789_123456789_123456789_123456789_123456789_123
for p in p23456789_123456789_12345678 "$p63"; do # 28 and 63 characters
  P=$(echo "$p" | tr a-z A-Z)
  expect 0 "generate --prefix of ${#p} characters" -- "$mbdc" generate "$cp" --prefix "$p" -o "$tmp/long$p"
  check_grep "the size of M in ${p}_crba" "double M\[${P}_NV \* ${P}_NV\]);" "$tmp/long$p/${p}_dynamics.h"
  harness "--prefix of ${#p} characters" "$tmp/long$p"
done
# Prefixes of the runtime's families (mb_ mbs_ MB_, any case) and '_' + letter are refused.
sed 's/^model cart_pole;/model mb;/' "$cp" >"$tmp/mb.mbd"
expect 2 "a model named mb" -- "$mbdc" generate "$tmp/mb.mbd" -o "$tmp/mb"
check_grep "why mb is refused" "mbdc: error: prefix 'mb' is reserved" "$tmp/err"
[ -e "$tmp/mb" ] && bad "a refused prefix created the output directory" || ok
for p in mb MB mbs Mbg mb_arm MBS_X mbg_ _arm _x9; do
  expect 2 "--prefix $p" -- "$mbdc" generate "$cp" --prefix "$p" -o "$tmp/mb"
  check_grep "--prefix $p says why" "mbdc: error: prefix '$p' is reserved" "$tmp/err"
done
expect 0 "--prefix mbot is not reserved" -- "$mbdc" generate "$cp" --prefix mbot -o "$tmp/mbot"
expect 2 "a prefix with control bytes" -- "$mbdc" generate "$cp" --prefix $'a\e[2Jb' -o "$tmp/x"
check_grep "the bad prefix is shown escaped" "prefix 'a\\\\x1b\\[2Jb' is not a C identifier" "$tmp/err"
# Function names that would collide with the generated tables and macros.
mkdir -p "$tmp/fn/algorithms"
for f in model joint_names body_names NQ nq have_x HAVE_CRBA dynamics_h set_id; do
  sed "s/my_fn/$f/g" "$tmp/cmd/t*/algorithms/my_fn.lua" >"$tmp/fn/algorithms/$f.lua"
  expect 2 "a function named $f" -- "$mbdc" generate "$cp" --templates "$tmp/fn" --functions "$f" -o "$tmp/x"
  check_grep "function $f refused" "would collide" "$tmp/err"
done
sed "s/my_fn/t/g" "$tmp/cmd/t*/algorithms/my_fn.lua" >"$tmp/fn/algorithms/t.lua"
expect 2 "a generated name of the C library (size_t)" -- "$mbdc" generate "$cp" --prefix size \
  --templates "$tmp/fn" --functions t -o "$tmp/x"
check_grep "size_t refused" "size_t" "$tmp/err"

# The harness of any subset of functions compiles strictly: user recipes only, each built-in.
expect 0 "only a user recipe" -- "$mbdc" generate "$cp" --templates "$tmp/cmd/t*" --functions my_fn -o "$tmp/user"
harness "the harness of a user recipe alone" "$tmp/user"
for f in rnea rnea_ext nle gravity crba crba_fd aba minv joint_wrenches fk cfa; do
  m=$cp
  [ "$f" = cfa ] && m=$src/examples/space_robot.mbd
  "$mbdc" generate "$m" --functions "$f",my_fn --templates "$tmp/cmd/t*" -o "$tmp/sub/$f" 2>"$tmp/err" ||
    { bad "generate --functions $f,my_fn"; continue; }
  if "$cc" "${strict[@]}" -fsyntax-only -I"$src/runtime" -I"$tmp/sub/$f" "$tmp/sub/$f"/*.c 2>"$tmp/cc.err"
  then ok; else bad "the harness of $f,my_fn does not compile strictly"; head -5 "$tmp/cc.err"; fi
done

echo "outputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
