#!/usr/bin/env bash
# What mbdc writes, against hostile input and a hostile machine (docs/security.md, "Outputs and untrusted input"):
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
# usage: outputs_test.sh MBDC SOURCE_DIR [CC]
set -u
if [ "${1:-}" = --full-disk-body ]; then # run in a mount namespace by the full-disk test below
  shift
  mount -t tmpfs -o size=128k tmpfs "$1" || exit 77
  shift
  "$@"
  exit $?
fi
mbdc=$1 src=$2 cc=${3:-cc}
mbdc=$(cd "$(dirname "$mbdc")" && pwd)/$(basename "$mbdc")
src=$(cd "$src" && pwd)
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
# the runtime for the harnesses, built here with CC (the build's own may be instrumented)
mkdir -p "$tmp/rt" && for f in "$src"/runtime/*.c; do
  "$cc" -std=c99 -O1 -c "$f" -o "$tmp/rt/$(basename "$f" .c).o" || exit 1
done && ar rcs "$tmp/librt.a" "$tmp"/rt/*.o || exit 1
rtlib=$tmp/librt.a

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
check_grep "the summary, escaped" 'twice q \\x2a/\\x0a#define cos sin\\x0a\\x2f\* \\x3f?/\. Stack: about [0-9]* bytes' \
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

# URDF names made into reserved C identifiers: the imported .mbd reads back, and generates.
cat >"$tmp/hostile.urdf" <<'EOF'
<robot name="-X">
  <link name="-A"><inertial><origin xyz="0.1 0 0"/><mass value="1"/><inertia ixx="1" iyy="2" izz="3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name=".."><inertial><origin xyz="0.2 0.1 0"/><mass value="1"/><inertia ixx="1" iyy="2" izz="3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="-"><inertial><origin xyz="0 0.1 0.3"/><mass value="1"/><inertia ixx="1" iyy="2" izz="3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="sin" type="revolute"><parent link="-A"/><child link=".."/><origin xyz="0.1 0.2 0.3"/><axis xyz="1 0 0"/></joint>
  <joint name="_" type="revolute"><parent link=".."/><child link="-"/><origin xyz="0.3 -0.1 0.2" rpy="0.1 0.2 0.3"/><axis xyz="0 1 0"/></joint>
</robot>
EOF
expect 0 "import hostile URDF names" -- "$mbdc" import "$tmp/hostile.urdf" -o "$tmp/hostile.mbd"
expect 0 "the imported .mbd of hostile names reads back" -- "$mbdc" check "$tmp/hostile.mbd"
expect 0 "and generates" -- "$mbdc" generate "$tmp/hostile.mbd" -o "$tmp/hostile"
harness "hostile URDF names" "$tmp/hostile"

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

# ---- atomic ---------------------------------------------------------------------------------
# The files of a set, old and new: same_set DIR REF (every file of REF equal in DIR)
files="cart_pole_dynamics.h cart_pole_dynamics.c cart_pole_model.c cart_pole_model.h cart_pole_check.c"
same_set() {
  for f in $files; do cmp -s "$1/$f" "$2/$f" || return 1; done
  return 0
}
no_stage() { # no_stage DESCRIPTION DIR: nothing but the set's files left
  if ls -A "$2" | grep -q '^\.mbdc-stage-'; then bad "$1: a staging directory was left in $2"; else ok; fi
}
# the sets of the atomic tests: the dynamics functions, small enough for the 128 KiB tmpfs below
fns=rnea,rnea_ext,nle,gravity,crba,crba_fd,aba,minv,joint_wrenches,fk
gen_old() { "$mbdc" generate "$cp" --functions $fns -o "$1" 2>/dev/null; }
gen_new() { "$mbdc" generate "$cp" --functions $fns --scalar float -o "$1" 2>/dev/null; }
a=$tmp/atomic && mkdir -p "$a" && cd "$a" || exit 1
gen_new out && cp -r out new && rm -rf out
gen_old out && cp -r out old

# A write that fails (injected: a full disk on the third file): exit 2, the old set untouched.
MBDC_TEST_HOOK=enospc:cart_pole_model.c "$mbdc" generate "$cp" --functions $fns --scalar float -o out >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && ok || bad "an injected write failure: exit status"
check_grep "the failure's message" "out/cart_pole_model.c: error: cannot write: No space left on device" "$tmp/err"
same_set out old && ok || bad "an injected write failure changed the old set"
no_stage "an injected write failure" out

# A real full disk: a small tmpfs (as root, or in a user namespace), the old set on it, nearly
# filled; the new set cannot be written: exit 2, the old set untouched, nothing left behind.
full_disk() { # full_disk MOUNTPOINT (run with the tmpfs mounted there)
  local fs=$1 ref=$1/../ref n=0
  mkdir -p "$ref" && gen_new "$fs/out" && cp -r "$fs/out" "$ref/new" && rm -rf "$fs/out" &&
    gen_old "$fs/out" && cp -r "$fs/out" "$ref/old" || { echo "cannot write the sets on the tmpfs"; return 1; }
  # fill the disk but for 8 KiB: the new header fits, the new source (11 KiB) does not
  dd if=/dev/zero of="$fs/fill" bs=1k count=$(($(df -k "$fs" | awk 'NR==2 {print $4}') - 8)) 2>/dev/null
  "$mbdc" generate "$cp" --functions $fns --scalar float -o "$fs/out" >"$ref/out" 2>"$ref/err"
  local rc=$?
  [ $rc -eq 2 ] || { echo "full disk: exit status $rc"; n=1; }
  grep -q "No space left on device" "$ref/err" || { echo "full disk: no message"; cat "$ref/err"; n=1; }
  same_set "$fs/out" "$ref/old" || { echo "full disk: the old set changed"; n=1; }
  ls -A "$fs/out" | grep -q '^\.mbdc-stage-' && { echo "full disk: a staging directory was left"; n=1; }
  rm -f "$fs/fill"
  gen_new "$fs/out" && same_set "$fs/out" "$ref/new" || { echo "full disk: no new set after freeing space"; n=1; }
  return $n
}
mkdir -p "$a/fs"
export -f full_disk same_set gen_old gen_new
export mbdc cp files
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=128k tmpfs "$a/fs" 2>/dev/null; then
  mounted=$a/fs
  full_disk "$a/fs" && ok || bad "a full disk (tmpfs of 128 KiB)"
  umount "$a/fs" && mounted=""
elif unshare -rm true 2>/dev/null; then
  unshare -rm bash "$0" --full-disk-body "$a/fs" bash -c 'full_disk "$0"' "$a/fs"
  case $? in 0) ok ;; 77) echo "note: no tmpfs in a user namespace here: the full disk is only injected" ;;
    *) bad "a full disk (tmpfs of 128 KiB in a user namespace)" ;; esac
else
  echo "note: cannot mount a tmpfs here: the full disk is only injected"
fi

# kill -9 at every step of a commit: the old set, or a mix that does not compile, which the next
# run into the directory completes (after the commit point) or drops (before it).
order=(cart_pole_dynamics.h cart_pole_dynamics.c cart_pole_model.c cart_pole_model.h cart_pole_check.c)
for step in stop:written stop:staged stop:renamed:1 stop:renamed:2 stop:renamed:3; do
  rm -rf out "$tmp/kill.err" && cp -r old out && : >"$tmp/kill.err" # no earlier run's message
  MBDC_TEST_HOOK=$step "$mbdc" generate "$cp" --functions $fns --scalar float -o out >/dev/null 2>"$tmp/kill.err" &
  pid=$!
  for _ in $(seq 600); do grep -q "test hook: stopped" "$tmp/kill.err" && break; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  grep -q "test hook: stopped at $step" "$tmp/kill.err" ||
    { bad "$step: the run did not stop there"; sed 's/^/  | /' "$tmp/kill.err"; continue; }
  renamed=0
  case $step in stop:renamed:*) renamed=${step#stop:renamed:} ;; esac
  state_ok=1
  for i in 0 1 2 3 4; do
    want=old
    [ "$i" -lt "$renamed" ] && want=new
    cmp -s "out/${order[$i]}" "$want/${order[$i]}" || state_ok=0
  done
  [ "$state_ok" = 1 ] && ok || bad "$step: the files after the kill are not the expected old/new ones"
  ls -A out | grep -q '^\.mbdc-stage-' && ok || bad "$step: no staging directory left for the next run"
  if [ "$renamed" -gt 0 ]; then # a mix: it must not compile
    if build out "$tmp/mix" 2>/dev/null; then bad "$step: a mixed set compiles"; else
      grep -q "are not from the same mbdc run" "$tmp/cc.err" && ok || bad "$step: a mixed set fails for another reason"
    fi
  fi
  # the next run into the directory, another model's set: it first finishes or drops the rest
  "$mbdc" generate "$src/examples/double_pendulum.mbd" -o out >/dev/null 2>"$tmp/next.err" || bad "$step: the next run failed"
  case $step in
    stop:written) same_set out old && ok || bad "$step: the next run did not keep the old set"
                  check_grep "$step: the next run says so" "removed the unfinished output" "$tmp/next.err" ;;
    *) same_set out new && ok || bad "$step: the next run did not complete the killed run's set"
       check_grep "$step: the next run says so" "put in place now" "$tmp/next.err" ;;
  esac
  no_stage "$step: after the next run" out
  [ -s out/double_pendulum_check.c ] && ok || bad "$step: the next run wrote nothing"
done
cd "$tmp" || exit 1

# ---- modes ----------------------------------------------------------------------------------
m=$tmp/modes
for u in 077 027 022; do
  (umask $u && "$mbdc" generate "$cp" -o "$m/$u" 2>/dev/null) || bad "generate under umask $u"
  want=$(printf '%o' $((0666 & ~8#$u)))
  got=$(stat -c %a "$m/$u/cart_pole_dynamics.h" "$m/$u/cart_pole_check.c" | sort -u)
  [ "$got" = "$want" ] && ok || bad "umask $u: files are $got, expected $want"
done
chmod 600 "$m/022/cart_pole_dynamics.h" && chmod 640 "$m/022/cart_pole_model.c"
(umask 022 && "$mbdc" generate "$cp" --scalar float -o "$m/022" 2>/dev/null) || bad "regenerate"
[ "$(stat -c %a "$m/022/cart_pole_dynamics.h")" = 600 ] && ok || bad "a 0600 file was widened"
[ "$(stat -c %a "$m/022/cart_pole_model.c")" = 640 ] && ok || bad "a 0640 file changed mode"
[ "$(stat -c %a "$m/022/cart_pole_check.c")" = 644 ] && ok || bad "a 0644 file changed mode"
grep -q "float" "$m/022/cart_pole_dynamics.h" && ok || bad "the 0600 file was not regenerated"

# ---- unchanged files -------------------------------------------------------------------------
# A file whose bytes would not change is not rewritten: its time stamp stays, so a build that
# depends on it does not recompile. A changed file is replaced.
u=$tmp/unchanged
"$mbdc" generate "$cp" -o "$u" 2>/dev/null || bad "generate (unchanged files)"
touch -d '2001-01-01 00:00:00' "$u"/cart_pole_*
before=$(stat -c '%n %y' "$u"/cart_pole_*)
"$mbdc" generate "$cp" -o "$u" 2>/dev/null || bad "generate again (unchanged files)"
[ "$(stat -c '%n %y' "$u"/cart_pole_*)" = "$before" ] && ok || bad "an unchanged file was rewritten"
no_stage "unchanged files" "$u"
echo "/* edited */" >>"$u/cart_pole_dynamics.c"
"$mbdc" generate "$cp" -o "$u" 2>/dev/null || bad "generate over an edited file"
grep -q "edited" "$u/cart_pole_dynamics.c" && bad "an edited file was not replaced" || ok
old_stamp=$(date -d '2001-01-01 00:00:00' +%s)
for f in cart_pole_dynamics.h cart_pole_model.c cart_pole_model.h cart_pole_check.c; do
  [ "$(stat -c %Y "$u/$f")" = "$old_stamp" ] && ok || bad "with one file edited, $f was rewritten"
done

# ---- targets --------------------------------------------------------------------------------
t=$tmp/targets && mkdir -p "$t" && cd "$t" || exit 1
dev=/dev/null
if [ "$(id -u)" -eq 0 ] && mknod "$t/null" c 1 3 2>/dev/null; then dev=$t/null; fi
echo keep >file
expect 2 "generate -o a file" -- "$mbdc" generate "$cp" -o file
check_grep "generate -o a file says why" "file: error: exists and is not a directory" "$tmp/err"
[ "$(cat file)" = keep ] && ok || bad "generate -o a file changed it"
expect 2 "generate -o /dev/null" -- "$mbdc" generate "$cp" -o /dev/null
check_grep "generate -o /dev/null says why" "/dev/null: error: exists and is not a directory" "$tmp/err"
for cmd in graph import; do
  model=$cp
  [ $cmd = import ] && model=$src/examples/urdf/ur5.urdf
  expect 2 "$cmd -o a device" -- "$mbdc" $cmd "$model" -o "$dev"
  check_grep "$cmd -o a device says why" "not a regular file" "$tmp/err"
  [ -c "$dev" ] && ok || bad "$cmd -o $dev replaced the device"
  mkdir -p d && expect 2 "$cmd -o a directory" -- "$mbdc" $cmd "$model" -o d
  [ -d d ] && ok || bad "$cmd -o a directory replaced it"
  ln -sf file link && expect 2 "$cmd -o a symbolic link" -- "$mbdc" $cmd "$model" -o link
  [ -L link ] && [ "$(cat file)" = keep ] && ok || bad "$cmd -o a symbolic link replaced it or its target"
  expect 0 "$cmd -o a new file" -- "$mbdc" $cmd "$model" -o new.$cmd
  no_stage "$cmd -o" .
done
mkdir -p g/cart_pole_dynamics.h
expect 2 "generate over a directory named like an output" -- "$mbdc" generate "$cp" -o g
check_grep "says which" "g/cart_pole_dynamics.h: error: exists and is not a regular file (a directory)" "$tmp/err"
[ "$(ls -A g)" = cart_pole_dynamics.h ] && ok || bad "a refused set left files: $(ls -A g)"
cd "$tmp" || exit 1

echo "outputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
