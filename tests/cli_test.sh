#!/usr/bin/env bash
# The mbdc command as a user meets it: exit statuses (0 ok, 1 model errors, 2 usage), every example
# accepted, graphs that Graphviz reads, and no half-written output file after a failure.
# usage: cli_test.sh MBDC SOURCE_DIR
set -u
mbdc=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
expect() { # expect STATUS DESCRIPTION -- COMMAND...
  local want=$1 what=$2
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $what: exit $got, expected $want"
    sed 's/^/  | /' "$tmp/err" | head -20
  fi
}

expect 0 "--help" -- "$mbdc" --help
grep -q '^usage: mbdc' "$tmp/out" || { echo "FAIL: --help prints no usage"; fail=$((fail + 1)); }
grep -q -- '--lua-time SECONDS' "$tmp/out" && grep -q -- '--lua-memory MIB' "$tmp/out" ||
  { echo "FAIL: --help does not document the Lua limits"; fail=$((fail + 1)); }
expect 0 "--version" -- "$mbdc" --version
grep -Eq '^mbdc [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out" || { echo "FAIL: --version"; fail=$((fail + 1)); }
expect 2 "no arguments" -- "$mbdc"
expect 2 "unknown command" -- "$mbdc" frobnicate x.mbd
expect 2 "check without a model" -- "$mbdc" check
expect 2 "unknown option" -- "$mbdc" check --bogus "$src/examples/cart_pole.mbd"
expect 2 "-o without a file" -- "$mbdc" graph "$src/examples/cart_pole.mbd" -o
# an empty path is not the current directory: refused before anything is written
mkdir "$tmp/empty_o"
cd "$tmp/empty_o" || exit 1
for c in graph import generate; do
  m=$src/examples/cart_pole.mbd
  [ "$c" = import ] && m=$src/examples/urdf/ur5.urdf
  expect 2 "$c -o ''" -- "$mbdc" "$c" "$m" -o ''
  grep -q "needs a .*, not ''" "$tmp/err" || { echo "FAIL: $c -o '': no message"; fail=$((fail + 1)); }
done
expect 2 "generate --templates ''" -- "$mbdc" generate "$src/examples/cart_pole.mbd" \
  --templates '' -o out
cd - >/dev/null || exit 1
[ -z "$(ls -A "$tmp/empty_o")" ] || { echo "FAIL: -o '' wrote files"; fail=$((fail + 1)); }
expect 2 "missing model file (I/O)" -- "$mbdc" check "$tmp/does-not-exist.mbd"
expect 2 "generate: missing model file (I/O)" -- "$mbdc" generate "$tmp/does-not-exist.mbd" -o "$tmp/g"
# every command has its own help; a mistyped command, option or function gets the nearest name
for c in check graph generate stats functions import help version; do
  expect 0 "$c --help" -- "$mbdc" "$c" --help
  grep -q "^usage: mbdc $c" "$tmp/out" || { echo "FAIL: $c --help prints no usage"; fail=$((fail + 1)); }
done
expect 0 "help generate" -- "$mbdc" help generate
grep -q "^usage: mbdc generate" "$tmp/out" || { echo "FAIL: help generate"; fail=$((fail + 1)); }
expect 2 "help of no command" -- "$mbdc" help frobnicate
expect 2 "a mistyped command" -- "$mbdc" chek x.mbd
grep -q "did you mean 'check'" "$tmp/err" || { echo "FAIL: no did-you-mean for chek"; fail=$((fail + 1)); }
expect 2 "a command's prefix" -- "$mbdc" gen x.mbd
grep -q "did you mean 'generate'" "$tmp/err" || { echo "FAIL: no did-you-mean for gen"; fail=$((fail + 1)); }
expect 2 "a mistyped option" -- "$mbdc" check --floatingbase "$src/examples/cart_pole.mbd"
grep -q "did you mean '--floating-base'" "$tmp/err" || { echo "FAIL: no did-you-mean for an option"; fail=$((fail + 1)); }

# -q: errors only, the same exit status (a URDF with warnings, a model with a note, a bad model)
panda="$src/examples/urdf/panda.urdf"
expect 0 "check a URDF with warnings" -- "$mbdc" check "$panda"
grep -q "warning: joint 'panda_finger_joint2' mimics" "$tmp/err" || { echo "FAIL: no warning without -q"; fail=$((fail + 1)); }
for c in check "generate -o $tmp/quiet" "stats" "graph -o $tmp/quiet.dot" "import -o $tmp/quiet.mbd"; do
  # shellcheck disable=SC2086
  expect 0 "$c -q" -- "$mbdc" $c -q "$panda"
  [ -s "$tmp/err" ] && { echo "FAIL: $c -q printed:"; head -3 "$tmp/err"; fail=$((fail + 1)); }
done
expect 0 "generate --quiet, a note" -- "$mbdc" generate --quiet "$src/examples/flexible_arm.mbd" -o "$tmp/quiet2"
[ -s "$tmp/err" ] && { echo "FAIL: generate --quiet printed a note"; fail=$((fail + 1)); }
printf 'body b { mass 1; }\njoint j revolute world -> b { axis 0 0 0; }\n' >"$tmp/bad0.mbd"
expect 1 "check -q of a bad model" -- "$mbdc" check -q "$tmp/bad0.mbd"
grep -q "error: 'axis' must be a non-zero vector" "$tmp/err" || { echo "FAIL: -q hid an error"; fail=$((fail + 1)); }

for model in "$src"/examples/*.mbd; do
  name=$(basename "$model" .mbd)
  expect 0 "check $name" -- "$mbdc" check "$model"
  grep -q "^model " "$tmp/out" || { echo "FAIL: check $name printed no summary"; fail=$((fail + 1)); }
  expect 0 "graph $name" -- "$mbdc" graph "$model" -o "$tmp/$name.dot"
  if command -v dot >/dev/null; then
    expect 0 "dot reads $name" -- dot -Tsvg "$tmp/$name.dot" -o "$tmp/$name.svg"
  fi
done

printf 'body b { mass 1; }\njoint j revolute world -> b { axis 0 0 0; }\n' >"$tmp/bad.mbd"
expect 1 "a model error" -- "$mbdc" check "$tmp/bad.mbd"
grep -q "bad.mbd:2:31: error: 'axis' must be a non-zero vector" "$tmp/err" ||
  { echo "FAIL: located message"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 1 "graph of a bad model" -- "$mbdc" graph "$tmp/bad.mbd" -o "$tmp/bad.dot"
if ls "$tmp"/bad.dot* >/dev/null 2>&1; then
  echo "FAIL: a failed graph left a file behind"
  fail=$((fail + 1))
fi
expect 2 "graph into a missing directory" -- "$mbdc" graph "$src/examples/cart_pole.mbd" -o "$tmp/no/such/dir/x.dot"

# a file that is no model: a few located errors, a hint, exit 1 (it used to print some 150 lines
# and "1577 errors"); a model's own errors are all reported (tests/golden/151_*)
head -c 6000 "$mbdc" >"$tmp/binary.mbd"
cp "$src/examples/urdf/ur5.urdf" "$tmp/robot.xml"
for f in "$src/README.md" "$src/runtime/mb.h" "$tmp/binary.mbd" "$tmp/robot.xml"; do
  expect 1 "check $(basename "$f"), not a model" -- "$mbdc" check "$f"
  n=$(grep -c ': error: ' "$tmp/err")
  [ "$n" -ge 1 ] && [ "$n" -le 10 ] && grep -q ":[0-9]*:[0-9]*: error: " "$tmp/err" &&
    grep -q "^$f: $n errors\?$" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -le 40 ] ||
    { echo "FAIL: check $f: $n errors, $(wc -l <"$tmp/err") lines"; head -5 "$tmp/err"
      fail=$((fail + 1)); }
  hint="note: this does not look like a .mbd model (mbdc reads .mbd, .urdf and MJCF .xml files)"
  [ "$f" = "$tmp/robot.xml" ] && hint="[0-9]*:[0-9]*: note: a <robot> document is a URDF: mbdc reads"
  grep -q "^$f:\? \?$hint" "$tmp/err" ||
    { echo "FAIL: check $f: no hint"; tail -3 "$tmp/err"; fail=$((fail + 1)); }
done
expect 1 "generate of a file that is no model" -- "$mbdc" generate "$src/README.md" -o "$tmp/readme"
grep -q "does not look like a .mbd model" "$tmp/err" && [ ! -e "$tmp/readme" ] ||
  { echo "FAIL: generate README.md"; tail -3 "$tmp/err"; fail=$((fail + 1)); }

# mbdc functions: every function with its signature (P the prefix), the list in generate --help
grep -q '^  functions ' <("$mbdc" --help) || { echo "FAIL: --help has no functions"; fail=$((fail + 1)); }
expect 0 "functions" -- "$mbdc" functions
qvt='const double q[P_NQ], const double v[P_NV], const double tau[P_NV], double qdd[P_NV]'
grep -qxF "    int P_aba($qvt);" "$tmp/out" && grep -qxF "    int P_rcr($qvt, int *used);" "$tmp/out" &&
  grep -q '^  aba_derivatives  *the derivatives of aba' "$tmp/out" ||
  { echo "FAIL: mbdc functions"; head -20 "$tmp/out"; fail=$((fail + 1)); }
expect 0 "functions --json --scalar float" -- "$mbdc" functions --json --scalar float
integrate='void P_integrate(const float q[P_NQ], const float v[P_NV], float dt, float q_out[P_NQ]);'
grep -q '^{"scalar": "float", "functions": \[$' "$tmp/out" &&
  grep -qF '{"name": "contact_fd", "group": "contacts", "functions_option": true, ' "$tmp/out" &&
  grep -qF "\"signature\": \"$integrate\"}" "$tmp/out" &&
  grep -qF '{"name": "project_q", "group": "loops", "functions_option": false' "$tmp/out" ||
  { echo "FAIL: mbdc functions --json"; head -5 "$tmp/out"; fail=$((fail + 1)); }
expect 2 "functions of a model" -- "$mbdc" functions "$src/examples/cart_pole.mbd"
grep -q "functions takes no model" "$tmp/err" || { echo "FAIL: functions MODEL: message"; fail=$((fail + 1)); }
expect 2 "functions --scalar quad" -- "$mbdc" functions --scalar quad
expect 2 "functions --jsn" -- "$mbdc" functions --jsn
grep -q "did you mean '--json'" "$tmp/err" || { echo "FAIL: functions --jsn: did-you-mean"; fail=$((fail + 1)); }
expect 0 "generate --help" -- "$mbdc" generate --help
for f in rnea frame_acceleration_bias loop_residual project_q passive_forces node_poses contact_fd trig \
         dynamics aba_wrenches rnea_derivatives aba_derivatives; do
  grep -q "^    $f  " "$tmp/out" || { echo "FAIL: generate --help does not list $f"; fail=$((fail + 1)); }
done
grep -q '^  generated only when --functions names them:$' "$tmp/out" ||
  { echo "FAIL: generate --help: no group of the functions by name"; fail=$((fail + 1)); }

# generate and stats: usage errors, recipe errors located in the template, nothing half-written
cp="$src/examples/cart_pole.mbd"
expect 2 "generate without a model" -- "$mbdc" generate
expect 2 "--scalar bad" -- "$mbdc" generate "$cp" --scalar quad -o "$tmp/g"
expect 2 "unknown function" -- "$mbdc" generate "$cp" --functions rnea,nope -o "$tmp/g"
grep -q "no recipe for function 'nope'" "$tmp/err" || { echo "FAIL: unknown function message"; fail=$((fail + 1)); }
# reproducible: the same model generated from another directory, through an absolute or a ../
# path, into another directory outside the current one gives the same bytes (the banner names no
# path outside the current directory; -o DIR inside it is shown, as mbdc_add_model's -o .)
mkdir -p "$tmp/rep1" "$tmp/rep2/a/b"
expect 0 "generate, absolute paths" -- "$mbdc" generate "$cp" -o "$tmp/rep1"
cp_rel=$(realpath --relative-to="$tmp/rep2/a" "$cp")
expect 0 "generate, a ../ path" -- sh -c 'cd "$1" && "$2" generate "$3" -o "$1/b"' sh "$tmp/rep2/a" "$mbdc" "$cp_rel"
diff -r "$tmp/rep1" "$tmp/rep2/a/b" >"$tmp/rep.diff" ||
  { echo "FAIL: generation depends on the directories"; head -20 "$tmp/rep.diff"; fail=$((fail + 1)); }
expect 2 "a mistyped function" -- "$mbdc" generate "$cp" --functions rnea,abba -o "$tmp/g"
grep -q "did you mean 'aba'?.*fd_loops" "$tmp/err" || { echo "FAIL: no did-you-mean or list for abba"; fail=$((fail + 1)); }
expect 2 "stats takes no -o" -- "$mbdc" stats "$cp" -o "$tmp/g"
# --frames: only the frames named, in the model's order; an unknown one is a usage error
arm="$src/examples/arm7.mbd"
expect 0 "generate --frames" -- "$mbdc" generate "$arm" --frames tcp,link7 --functions frame_pose -o "$tmp/fr"
grep -q "^#define ARM7_NF 2 " "$tmp/fr/arm7_dynamics.h" &&
  grep -q "^#define ARM7_FRAME_link7 0$" "$tmp/fr/arm7_dynamics.h" &&
  grep -q "^#define ARM7_FRAME_tcp 1$" "$tmp/fr/arm7_dynamics.h" &&
  ! grep -q "ARM7_FRAME_link1" "$tmp/fr/arm7_dynamics.h" ||
  { echo "FAIL: --frames tcp,link7"; grep FRAME "$tmp/fr/arm7_dynamics.h"; fail=$((fail + 1)); }
expect 2 "--frames with an unknown frame" -- "$mbdc" generate "$arm" --frames tpc -o "$tmp/fr"
grep -q "no frame 'tpc'; did you mean 'tcp'?" "$tmp/err" ||
  { echo "FAIL: --frames did-you-mean"; cat "$tmp/err"; fail=$((fail + 1)); }
# --contacts: the contact functions join the defaults; every wrong item is a usage error
expect 0 "generate --contacts" -- "$mbdc" generate "$arm" --contacts tcp:6,link5 -o "$tmp/ct"
grep -q "^#define ARM7_NCONTACT 2 " "$tmp/ct/arm7_dynamics.h" &&
  grep -q "^#define ARM7_NCROWS 9 " "$tmp/ct/arm7_dynamics.h" &&
  grep -q "^#define ARM7_CROW_link5 6 " "$tmp/ct/arm7_dynamics.h" &&
  grep -q "^int arm7_contact_fd(.*const int contacts\[ARM7_NCONTACT\]" "$tmp/ct/arm7_dynamics.h" &&
  grep -q "^int arm7_contact_fd_reg(" "$tmp/ct/arm7_dynamics.h" &&
  grep -q "^int arm7_impulse(" "$tmp/ct/arm7_dynamics.h" ||
  { echo "FAIL: --contacts tcp:6,link5"; grep -i contact "$tmp/ct/arm7_dynamics.h"; fail=$((fail + 1)); }
expect 2 "--contacts with an unknown frame" -- "$mbdc" generate "$arm" --contacts tpc -o "$tmp/ct2"
grep -q "no frame 'tpc'; did you mean 'tcp'?" "$tmp/err" ||
  { echo "FAIL: --contacts did-you-mean"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "--contacts with a bad dimension" -- "$mbdc" generate "$arm" --contacts tcp:4 -o "$tmp/ct2"
grep -q "expected FRAME, FRAME:3 (a point contact) or FRAME:6" "$tmp/err" ||
  { echo "FAIL: --contacts tcp:4"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "--contacts twice a frame" -- "$mbdc" generate "$arm" --contacts tcp,tcp:6 -o "$tmp/ct2"
sed 's/^frame tcp tool/frame fixed_pt world/' "$arm" >"$tmp/world_frame.mbd"
expect 2 "--contacts on the world" -- "$mbdc" generate "$tmp/world_frame.mbd" --contacts fixed_pt -o "$tmp/ct2"
grep -q "fixed to the world" "$tmp/err" ||
  { echo "FAIL: --contacts base"; cat "$tmp/err"; fail=$((fail + 1)); }
# hybrid (docs/analysis.md): the run-time mask an int array; hybrid_fixed needs --prescribed, whose
# every wrong item is a usage error
expect 0 "generate hybrid, hybrid_fixed" -- "$mbdc" generate "$arm" --functions hybrid,hybrid_fixed \
  --prescribed a2,a4 -o "$tmp/hy"
{ grep -q "^int arm7_hybrid(const double q\[ARM7_NQ\], const double v\[ARM7_NV\], const int mask\[ARM7_NV\], const double in\[ARM7_NV\], double qdd\[ARM7_NV\], double tau\[ARM7_NV\]);" "$tmp/hy/arm7_dynamics.h" &&
  grep -q "^int arm7_hybrid_fixed(const double q\[ARM7_NQ\], const double v\[ARM7_NV\], const double in\[ARM7_NV\], double qdd\[ARM7_NV\], double tau\[ARM7_NV\]);" "$tmp/hy/arm7_dynamics.h" &&
  grep -q "static const int hfixed\[NV\] = {0, 1, 0, 1, 0, 0, 0};" "$tmp/hy/arm7_check.c"; } ||
  { echo "FAIL: hybrid declarations"; grep hybrid "$tmp/hy/arm7_dynamics.h"; fail=$((fail + 1)); }
expect 2 "hybrid_fixed without --prescribed" -- "$mbdc" generate "$arm" --functions hybrid_fixed -o "$tmp/hy2"
grep -q "hybrid_fixed needs the joints it prescribes: --prescribed JOINT" "$tmp/err" ||
  { echo "FAIL: hybrid_fixed without --prescribed"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "--prescribed an unknown joint" -- "$mbdc" generate "$arm" --functions hybrid_fixed \
  --prescribed a9 -o "$tmp/hy2"
grep -q "no joint 'a9'" "$tmp/err" || { echo "FAIL: --prescribed a9"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "--prescribed a fixed joint" -- "$mbdc" generate "$arm" --functions hybrid_fixed \
  --prescribed flange -o "$tmp/hy2"
grep -q "fixed joint 'flange': it has no dof to prescribe" "$tmp/err" ||
  { echo "FAIL: --prescribed flange"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "--prescribed twice a joint" -- "$mbdc" generate "$arm" --functions hybrid_fixed \
  --prescribed a2,a2 -o "$tmp/hy2"
expect 2 "--prescribed an empty name" -- "$mbdc" generate "$arm" --functions hybrid_fixed \
  --prescribed a2, -o "$tmp/hy2"
expect 2 "--prescribed a loop joint" -- "$mbdc" generate "$src/examples/five_bar.mbd" \
  --functions hybrid_fixed --prescribed q5 -o "$tmp/hy2"
grep -q "loop joint 'q5'" "$tmp/err" || { echo "FAIL: --prescribed q5"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 1 "hybrid with flexible bodies" -- "$mbdc" generate "$src/examples/flexible_arm.mbd" \
  --functions hybrid -o "$tmp/hy2"
# --parameters (docs/parameters.md): pi first where the result depends on it, not elsewhere; a
# body fixed to a moving one stays a block of its own; every wrong item is a usage error
expect 0 "generate --parameters" -- "$mbdc" generate "$arm" -q --parameters tool,gravity -o "$tmp/pa"
h=$tmp/pa/arm7_dynamics.h
grep -q "^#define ARM7_NPI 13 " "$h" && grep -q "^void arm7_rnea(const double pi\[ARM7_NPI\], " "$h" &&
  grep -q "^void arm7_fk(const double q\[ARM7_NQ\], " "$h" &&
  grep -q '"tool.m", "tool.mcx", ' "$tmp/pa/arm7_dynamics.c" &&
  grep -q '"gravity.x", "gravity.y", "gravity.z"};' "$tmp/pa/arm7_dynamics.c" &&
  ! grep -q "^int arm7_cfa(" "$h" ||
  { echo "FAIL: --parameters tool,gravity"; grep -n "pi\[\|NPI" "$h"; fail=$((fail + 1)); }
expect 2 "--parameters with an unknown body" -- "$mbdc" generate "$arm" --parameters tol -o "$tmp/pa2"
grep -q "'tol' is not a body, 'all' or 'gravity'; did you mean 'tool'?" "$tmp/err" ||
  { echo "FAIL: --parameters did-you-mean"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "--parameters twice a body" -- "$mbdc" generate "$arm" --parameters link3,link3 -o "$tmp/pa2"
expect 2 "--parameters twice gravity" -- "$mbdc" generate "$arm" --parameters gravity,all,gravity -o "$tmp/pa2"
expect 2 "--parameters on the world" -- "$mbdc" generate "$arm" --parameters world -o "$tmp/pa2"
expect 2 "--parameters with an empty item" -- "$mbdc" generate "$arm" --parameters link1, -o "$tmp/pa2"
sed 's/^joint a1 revolute world -> link1 .*/joint a1 fixed world -> link1 { origin xyz 0 0 d_base; }/' \
  "$arm" >"$tmp/fixed1.mbd"
expect 2 "--parameters of a body fixed to the world" -- \
  "$mbdc" generate "$tmp/fixed1.mbd" --parameters link1 -o "$tmp/pa2"
grep -q "body 'link1' is fixed to the world" "$tmp/err" ||
  { echo "FAIL: --parameters fixed to the world"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "--parameters with --frame com" -- "$mbdc" generate "$arm" --parameters all --frame com -o "$tmp/pa2"
expect 1 "--parameters with cfa by name" -- "$mbdc" generate "$arm" --parameters all --functions cfa -o "$tmp/pa2"
expect 2 "--parameters of a flexible body" -- \
  "$mbdc" generate "$src/examples/flexible_arm.mbd" --parameters all -o "$tmp/pa2"
[ -e "$tmp/pa2" ] && { echo "FAIL: --parameters errors wrote output"; fail=$((fail + 1)); }
# joint properties (docs/dsl.md "Joint properties"): the limits as the header's tables (INFINITY
# where none), passive_forces among the defaults, rcr generated with armature, cfa not
expect 0 "generate with joint properties" -- "$mbdc" generate "$src/tests/jprops/five_bar_jp.mbd" -o "$tmp/jp"
c=$tmp/jp/five_bar_dynamics.c
grep -q "^void five_bar_passive_forces(" "$tmp/jp/five_bar_dynamics.h" &&
  ! grep -q "five_bar_cfa(" "$tmp/jp/five_bar_dynamics.h" &&
  grep -q "^int five_bar_rcr(" "$tmp/jp/five_bar_dynamics.h" &&
  grep -A1 "^const double five_bar_tau_max" "$c" | grep -q "INFINITY, INFINITY, INFINITY, INFINITY" ||
  { echo "FAIL: joint properties"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 0 "URDF limits" -- "$mbdc" generate "$src/examples/urdf/ur5.urdf" -q -o "$tmp/ur5"
grep -A1 "^const double ur5_q_max" "$tmp/ur5/ur5_dynamics.c" |
  grep -q "6.28318530718, 6.28318530718, 3.14159265359, 6.28318530718" &&
  grep -A1 "^const double ur5_tau_max" "$tmp/ur5/ur5_dynamics.c" | grep -q "1.5e+02, 1.5e+02" ||
  { echo "FAIL: URDF limits"; grep -A1 "_max\|_min" "$tmp/ur5/ur5_dynamics.c"; fail=$((fail + 1)); }
expect 0 "rcr with armature" -- "$mbdc" generate "$src/tests/jprops/five_bar_jp.mbd" --functions rcr -o "$tmp/jp2"
expect 1 "cfa with armature" -- "$mbdc" generate "$src/tests/jprops/quadruped_jp.mbd" --functions cfa -o "$tmp/jp3"
grep -q "cfa is not generated for joints with armature yet" "$tmp/err" ||
  { echo "FAIL: cfa with armature"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "contact_fd without --contacts" -- "$mbdc" generate "$arm" --functions contact_fd -o "$tmp/ct2"
grep -q "needs the frames in contact" "$tmp/err" ||
  { echo "FAIL: contact_fd without --contacts"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "--contacts on a model with loops" -- "$mbdc" generate "$src/examples/five_bar.mbd" --contacts bar2 -o "$tmp/ct2"
grep -q "not yet for a model with loop joints" "$tmp/err" ||
  { echo "FAIL: --contacts on five_bar"; cat "$tmp/err"; fail=$((fail + 1)); }
[ ! -e "$tmp/ct2" ] || { echo "FAIL: a refused --contacts wrote $tmp/ct2"; fail=$((fail + 1)); }
# --batch (docs/batch.md): every function's three batch forms declared, the lanes function where
# the body is one graph, "one state at a time" where it is not (the derivatives' epilogue); the
# output without it unchanged but for the command line and the set's mark; not an option of stats
expect 0 "generate --batch" -- "$mbdc" generate "$arm" --batch --functions rnea,aba,aba_derivatives \
  -o "$tmp/bt"
h=$tmp/bt/arm7_dynamics.h
grep -q "^#define ARM7_HAVE_BATCH 1" "$h" &&
  grep -q "^void arm7_rnea_batch(int n, const double \*ARM7_RESTRICT q, const double \*ARM7_RESTRICT v, const double \*ARM7_RESTRICT a, double \*ARM7_RESTRICT tau);" "$h" &&
  grep -q "^int arm7_aba_batch_range(int n, int i0, int i1, .*int \*ARM7_RESTRICT status);" "$h" &&
  grep -q "^int arm7_aba_batch_threads(int n, " "$h" &&
  grep -q "^/\* arm7_aba_derivatives_batch: one state at a time \*/" "$h" &&
  grep -q "^static void arm7_aba_lanes(ptrdiff_t n, " "$tmp/bt/arm7_dynamics.c" &&
  ! grep -q "arm7_aba_derivatives_lanes" "$tmp/bt/arm7_dynamics.c" &&
  grep -q "batch functions (%d states, SoA) against their scalar calls" "$tmp/bt/arm7_check.c" ||
  { echo "FAIL: --batch"; fail=$((fail + 1)); }
expect 0 "the same without --batch" -- "$mbdc" generate "$arm" --functions rnea,aba,aba_derivatives \
  -o "$tmp/bt2"
expect 0 "--batch again" -- "$mbdc" generate "$arm" --batch --functions rnea,aba,aba_derivatives \
  -o "$tmp/bt3"
diff -r "$tmp/bt" "$tmp/bt3" >/dev/null || { echo "FAIL: --batch not deterministic"; fail=$((fail + 1)); }
! grep -q "_batch\|_LANES" "$tmp/bt2/arm7_dynamics.h" "$tmp/bt2/arm7_dynamics.c" ||
  { echo "FAIL: batch functions without --batch"; fail=$((fail + 1)); }
expect 2 "stats --batch" -- "$mbdc" stats "$arm" --batch
# the header from C++ (P_RESTRICT is __restrict there), and the file with -O3's vectorizer
if command -v c++ >/dev/null; then
  printf '#include "arm7_dynamics.h"\nint main() { return ARM7_HAVE_BATCH - 1; }\n' >"$tmp/bt/use.cpp"
  c++ -std=c++11 -Wall -Wextra -Werror -pedantic -I"$tmp/bt" -c "$tmp/bt/use.cpp" -o "$tmp/bt/use.o" ||
    { echo "FAIL: the --batch header in C++"; fail=$((fail + 1)); }
fi
cc -std=c99 -O3 -Wall -Wextra -Werror -pedantic -c "$tmp/bt/arm7_dynamics.c" -o "$tmp/bt/d.o" ||
  { echo "FAIL: the --batch file at -O3"; fail=$((fail + 1)); }
# --passive-in-fd (docs/dsl.md "Joint properties"): said in the header; a note where the model has
# nothing passive (the output then that of a run without it but for the command line in the
# banners and the set's mark); aba_derivatives refused with
# springs, by name and in a --fuse; not an option of check; a mistyped one gets the nearest
expect 0 "generate --passive-in-fd" -- "$mbdc" generate "$src/tests/jprops/five_bar_jp.mbd" \
  --passive-in-fd -o "$tmp/pf"
grep -q "Generated with --passive-in-fd: the forward dynamics" "$tmp/pf/five_bar_dynamics.h" &&
  grep -q "tau_passive_0" "$tmp/pf/five_bar_dynamics.c" &&
  grep -q "mb_passive_tau(&M, &SPRINGS, ws, q, v, tau_in, tau)" "$tmp/pf/five_bar_check.c" ||
  { echo "FAIL: --passive-in-fd"; fail=$((fail + 1)); }
expect 0 "--passive-in-fd without passive forces" -- "$mbdc" generate "$arm" --passive-in-fd \
  --functions aba -o "$tmp/pf2"
cp "$tmp/err" "$tmp/err_pf2"
expect 0 "the same without it" -- "$mbdc" generate "$arm" --functions aba -o "$tmp/pf3"
grep -q "note: --passive-in-fd changes nothing: the model has no springs and no joint with" \
  "$tmp/err_pf2" && diff -r -I 'mbdc generate' -I 'SET_ID' "$tmp/pf2" "$tmp/pf3" >/dev/null ||
  { echo "FAIL: --passive-in-fd on arm7"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 1 "--passive-in-fd, aba_derivatives with springs" -- "$mbdc" generate \
  "$src/examples/quarter_car.mbd" --passive-in-fd --functions aba_derivatives -o "$tmp/pf4"
grep -q "error: --functions aba_derivatives: not generated with --passive-in-fd for a model with springs yet" "$tmp/err" ||
  { echo "FAIL: --passive-in-fd aba_derivatives"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 1 "--passive-in-fd, aba_derivatives with springs in --fuse" -- "$mbdc" generate \
  "$src/examples/quarter_car.mbd" --passive-in-fd --functions aba --fuse d=aba,aba_derivatives \
  -o "$tmp/pf4"
expect 0 "--passive-in-fd, aba_derivatives without springs" -- "$mbdc" generate \
  "$src/tests/jprops/five_bar_jp.mbd" --passive-in-fd --functions aba_derivatives -o "$tmp/pf5"
[ ! -e "$tmp/pf4" ] || { echo "FAIL: a refused --passive-in-fd wrote $tmp/pf4"; fail=$((fail + 1)); }
expect 2 "--passive-in-fd is not an option of check" -- "$mbdc" check "$arm" --passive-in-fd
expect 2 "--passive-in-fd mistyped" -- "$mbdc" generate "$arm" --passive-in-dt -o "$tmp/pf6"
grep -q "did you mean '--passive-in-fd'" "$tmp/err" ||
  { echo "FAIL: --passive-in-fd did-you-mean"; cat "$tmp/err"; fail=$((fail + 1)); }
# coupled (mimic) joints (docs/dsl.md "Coupled joints"): the independent coordinates in the
# header, the coupling as the model's data, the functions not generated yet left out with a note
# or refused when asked for, the model's mistakes located errors
expect 0 "generate with coupled joints" -- "$mbdc" generate "$src/tests/coupled/gripper.mbd" -o "$tmp/cp"
grep -q "^#define GRIPPER_NQ 4 " "$tmp/cp/gripper_dynamics.h" &&
  grep -q "^#define GRIPPER_NQ_FULL 6" "$tmp/cp/gripper_model.h" &&
  grep -q "^#define GRIPPER_IQ_roll 2" "$tmp/cp/gripper_dynamics.h" &&
  grep -q "^const mb_coupling gripper_coupling = {4, 4," "$tmp/cp/gripper_model.c" &&
  grep -q "cfa is not generated" "$tmp/err" ||
  { echo "FAIL: coupled joints"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 1 "base_regressor with coupled joints" -- "$mbdc" generate "$src/tests/coupled/gripper.mbd" --functions base_regressor -o "$tmp/cp2"
grep -q "base_regressor is not generated for models with coupled (mimic) joints yet" "$tmp/err" ||
  { echo "FAIL: base_regressor with coupled joints"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 1 "a --fuse of mixed kinds with coupled joints" -- "$mbdc" generate "$src/tests/coupled/gripper.mbd" --fuse mix=rnea,aba -o "$tmp/cp2"
grep -q "error: --fuse mix: with coupled (mimic) joints a fused function's parts must map" "$tmp/err" ||
  { echo "FAIL: --fuse mix with coupled joints"; cat "$tmp/err"; fail=$((fail + 1)); }
sed -e 's/^joint q2 revolute  bar1 -> bar2  { /&mimic q1 -1; /' -e '/^initial q2 /d' "$src/examples/five_bar.mbd" > "$tmp/fbm.mbd"
expect 1 "loops with coupled joints" -- "$mbdc" check "$tmp/fbm.mbd"
grep -q "fbm.mbd:64:36: error: joint 'q2' mimics joint 'q1', and the model has loop joints ('q5'): coupled joints are not supported with loops yet" "$tmp/err" ||
  { echo "FAIL: loops with coupled joints"; cat "$tmp/err"; fail=$((fail + 1)); }
[ ! -e "$tmp/cp2" ] || { echo "FAIL: a refused coupled model wrote $tmp/cp2"; fail=$((fail + 1)); }
expect 0 "import --couple-mimic" -- "$mbdc" import "$src/examples/urdf/panda.urdf" --couple-mimic -q -o "$tmp/pc.mbd"
grep -q "mimic panda_finger_joint1 1.0 0.0;" "$tmp/pc.mbd" &&
  "$mbdc" check "$tmp/pc.mbd" | grep -q "independent   nq = 8, nv = 8" ||
  { echo "FAIL: import --couple-mimic round trip"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 0 "a URDF <mimic> without --couple-mimic" -- "$mbdc" check "$src/examples/urdf/panda.urdf"
grep -q "warning: joint 'panda_finger_joint2' mimics joint 'panda_finger_joint1'; it is imported as an independent joint with its own coordinate: pass --couple-mimic" "$tmp/err" ||
  { echo "FAIL: <mimic> warning"; cat "$tmp/err"; fail=$((fail + 1)); }
mimic_case() { # mimic_case DESCRIPTION MESSAGE JOINT-ITEMS-OF-b [EXTRA STATEMENT]
  printf '%s\n' "model mc;" "body a { mass 1; inertia 1 1 1 0 0 0; }" \
    "body b { mass 1; inertia 1 1 1 0 0 0; }" "joint ja revolute world -> a;" \
    "joint jb $3 a -> b { $4 }" "${5:-}" > "$tmp/mc.mbd"
  expect 1 "$1" -- "$mbdc" check "$tmp/mc.mbd"
  grep -q "$2" "$tmp/err" || { echo "FAIL: $1"; cat "$tmp/err"; fail=$((fail + 1)); }
}
mimic_case "mimic itself" "mc.mbd:5:28: error: joint 'jb' mimics itself" revolute "mimic jb;"
mimic_case "mimic of a spherical joint" "'mimic' applies to a joint of one degree of freedom" \
  spherical "mimic ja;"
mimic_case "mimic without a name" "'mimic' expects the name of the joint it follows" revolute "mimic 2;"
mimic_case "mimic of an unknown joint" "unknown joint 'jc'" revolute "mimic jc 2;"
mimic_case "mimic with a zero multiplier" "nonzero multiplier" revolute "mimic ja 0;"
mimic_case "mimic with an initial state" "its initial state follows from the source's" revolute \
  "mimic ja -1;" "initial jb 0.3;"
# --fuse NAME=f1,f2,...: one function for several recipes; its mistakes are usage errors and
# write nothing
expect 0 "generate --fuse" -- "$mbdc" generate "$arm" --functions rnea --fuse dyn=crba,nle,aba \
  --fuse kin=frame_pose,frame_jacobian -o "$tmp/fu"
grep -q "^int arm7_dyn(const double q\[ARM7_NQ\], const double v\[ARM7_NV\], const double tau\[ARM7_NV\], double M\[ARM7_NV \* ARM7_NV\], double h\[ARM7_NV\], double qdd\[ARM7_NV\]);" "$tmp/fu/arm7_dynamics.h" &&
  grep -q "^void arm7_kin(const double q\[ARM7_NQ\], double pose\[12 \* ARM7_NF\], double J\[6 \* ARM7_NV \* ARM7_NF\]);" "$tmp/fu/arm7_dynamics.h" ||
  { echo "FAIL: --fuse prototypes"; grep -n "arm7_dyn\|arm7_kin" "$tmp/fu/arm7_dynamics.h"; fail=$((fail + 1)); }
# the fused counts are those of the named fused recipe dynamics (crba, nle, aba: the same graph)
"$mbdc" stats "$arm" --json --functions dynamics --fuse dyn=crba,nle,aba >"$tmp/fu.json" 2>"$tmp/err"
dyn=$(sed -n 's/.*"dyn": \({[^}]*}\).*/\1/p' "$tmp/fu.json")
dynamics=$(sed -n 's/.*"dynamics": \({[^}]*}\).*/\1/p' "$tmp/fu.json")
[ -n "$dyn" ] && [ "$dyn" = "$dynamics" ] ||
  { echo "FAIL: --fuse counts: '$dyn' against '$dynamics'"; cat "$tmp/fu.json"; fail=$((fail + 1)); }
fuse_err() { # fuse_err WHAT MESSAGE ARGS...: exit 2 (or $status), MESSAGE on stderr, no output
  local what=$1 msg=$2
  shift 2
  rm -rf "$tmp/fu2"
  expect "${status:-2}" "--fuse: $what" -- "$mbdc" generate "$@" -o "$tmp/fu2"
  grep -q -- "$msg" "$tmp/err" || { echo "FAIL: --fuse: $what: message"; cat "$tmp/err"; fail=$((fail + 1)); }
  [ ! -e "$tmp/fu2" ] || { echo "FAIL: --fuse: $what wrote $tmp/fu2"; fail=$((fail + 1)); }
}
fuse_err "no =" "expected NAME=f1,f2,..." "$arm" --fuse crba,nle
fuse_err "a bad name" "expected NAME=f1,f2,..." "$arm" --fuse "9x=crba,nle"
fuse_err "one part" "name two functions or more" "$arm" --fuse x=crba
fuse_err "a part twice" "'crba' is listed twice" "$arm" --fuse x=crba,nle,crba
fuse_err "an unknown part" "did you mean 'aba'?" "$arm" --fuse x=crba,abba
fuse_err "cfa" "cfa cannot be fused" "$arm" --fuse x=crba,cfa
fuse_err "a recipe's name" "'rnea' is the name of a recipe" "$arm" --fuse rnea=crba,nle
fuse_err "the name twice" "the name is given twice" "$arm" --fuse x=crba,nle --fuse x=aba,nle
fuse_err "listed twice" "--functions lists 'x' twice" "$arm" --fuse x=crba,nle --functions x,x
# a fused function named in --functions too is that one function, generated once
rm -rf "$tmp/fu3"
expect 0 "--fuse x=... --functions rnea,x" -- "$mbdc" generate "$arm" --fuse x=crba,nle \
  --functions rnea,x -o "$tmp/fu3"
[ "$(grep -cE '^(void|int) [a-z0-9_]+_x\(' "$tmp/fu3/arm7_dynamics.c" 2>/dev/null)" = 1 ] ||
  { echo "FAIL: --fuse x with --functions x: not one arm7_x"; fail=$((fail + 1)); }
fuse_err "a fused part" "another --fuse function" "$arm" --fuse x=crba,nle --fuse y=x,aba
fuse_err "an output twice" "'fk' and 'frame_pose' both have a parameter 'pose' (both write it)" \
  "$arm" --fuse x=fk,frame_pose
fuse_err "an output read" "'rnea' and 'aba' both have a parameter 'tau' (one writes it, the other reads it)" \
  "$arm" --fuse x=rnea,aba
fuse_err "not a recipe" "'spatial' is not a recipe" "$arm" --fuse x=crba,spatial
status=1 fuse_err "a loop function" "--fuse x fd_loops: fd_loops needs a model with loop joints" \
  "$arm" --fuse x=crba,fd_loops
fuse_err "a hostile part" "(not a C identifier)" "$arm" --fuse "x=crba,$(printf 'a\nb*/'),$(printf 'a\nb*/')"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || { echo "FAIL: --fuse: a part's newline reached stderr"; cat "$tmp/err"; fail=$((fail + 1)); }
fuse_err "an epilogue" "'aba_derivatives' ends in C code of its own (its epilogue) and cannot be fused" \
  "$arm" --fuse x=crba,aba_derivatives
# the derivatives (docs/derivatives.md): refused for flexible bodies; computed in world frames
expect 1 "aba_derivatives on a flexible model" -- "$mbdc" generate "$src/examples/flexible_arm.mbd" \
  --functions aba_derivatives -o "$tmp/dfx"
grep -q "error: --functions aba_derivatives: aba_derivatives is not generated for models with flexible bodies yet" "$tmp/err" ||
  { echo "FAIL: aba_derivatives on a flexible model: message"; cat "$tmp/err"; fail=$((fail + 1)); }
[ ! -e "$tmp/dfx" ] || { echo "FAIL: a refused aba_derivatives wrote $tmp/dfx"; fail=$((fail + 1)); }
"$mbdc" stats "$arm" --json --functions rnea_derivatives,aba_derivatives >"$tmp/d.json" 2>"$tmp/err"
[ "$(grep -o '"frame": "world"' "$tmp/d.json" | wc -l)" -eq 2 ] ||
  { echo "FAIL: derivatives: stats frame"; cat "$tmp/d.json"; fail=$((fail + 1)); }
expect 2 "--fuse 17 times" -- "$mbdc" generate "$arm" $(for k in $(seq 17); do echo --fuse "f$k=crba,nle"; done) -o "$tmp/fu2"
expect 2 "bad prefix" -- "$mbdc" generate "$cp" --prefix 9lives -o "$tmp/g"
expect 1 "generate a bad model" -- "$mbdc" generate "$tmp/bad.mbd" -o "$tmp/g"
mkdir -p "$tmp/tpl/algorithms"
printf 'return {\n  name = "rnea", summary = "x", returns = "void",\n  params = {{name = "q", role = "q"}, {name = "tau", role = "out_nv"}},\n  build = function(model)\n    local x = model.bodies[1].nope.x\n  end,\n}\n' >"$tmp/tpl/algorithms/rnea.lua"
expect 1 "a failing recipe" -- "$mbdc" generate "$cp" --templates "$tmp/tpl" --functions rnea -o "$tmp/g"
grep -q "tpl/algorithms/rnea.lua:5: attempt to index a nil value" "$tmp/err" ||
  { echo "FAIL: recipe error not located"; cat "$tmp/err"; fail=$((fail + 1)); }
# a recipe's epilogue (C after its graph) needs the parameters it reads and writes
mkdir -p "$tmp/tpl_ep/algorithms"
printf 'return {\n  name = "my_ep", summary = "x", returns = "int", epilogue = "minus_minv_product",\n  params = {{name = "q", role = "q"}, {name = "Minv", role = "out_nvnv"}},\n  build = function(model) end,\n}\n' >"$tmp/tpl_ep/algorithms/my_ep.lua"
expect 1 "an epilogue without its parameters" -- "$mbdc" generate "$cp" --templates "$tmp/tpl_ep" \
  --functions my_ep -o "$tmp/g_ep"
grep -q "the epilogue minus_minv_product needs the parameters dqdd_dq (out_nvnv)" "$tmp/err" ||
  { echo "FAIL: an epilogue without its parameters: message"; cat "$tmp/err"; fail=$((fail + 1)); }
sed -i 's/"minus_minv_product"/"something"/' "$tmp/tpl_ep/algorithms/my_ep.lua"
expect 1 "an unknown epilogue" -- "$mbdc" generate "$cp" --templates "$tmp/tpl_ep" --functions my_ep \
  -o "$tmp/g_ep"
grep -q "'epilogue' must be \"minus_minv_product\"" "$tmp/err" ||
  { echo "FAIL: an unknown epilogue: message"; cat "$tmp/err"; fail=$((fail + 1)); }
if [ -e "$tmp/g" ] && [ -n "$(ls -A "$tmp/g")" ]; then
  echo "FAIL: a failed generation left files behind"; fail=$((fail + 1))
fi
printf 'return {\n  name = "rnea", summary = "x", returns = "void",\n  params = {{name = "q", role = "q"}, {name = "tau", role = "out_nv"}},\n  build = function(model) sym.output("tau", 0, 1) end,\n}\n' >"$tmp/tpl/algorithms/rnea.lua"
expect 1 "a recipe that misses an output" -- "$mbdc" generate "$cp" --templates "$tmp/tpl" --functions rnea -o "$tmp/g"
grep -q "never writes tau\[1\]" "$tmp/err" || { echo "FAIL: missing output message"; fail=$((fail + 1)); }

# Templates you did not write: no Lua error escapes a protected call (the process used to abort),
# a runaway or a memory bomb stops at its limit, the data tables stay read-only, and a problem in
# --templates is never silent. `timeout` keeps a regression from hanging the suite.
recipe() { # recipe DIR BUILD-BODY: DIR/algorithms/rnea.lua with that build function body
  mkdir -p "$1/algorithms"
  printf 'return {\n  name = "rnea", summary = "x", returns = "void",\n  params = {{name = "q", role = "q"}, {name = "tau", role = "out_nv"}},\n  build = function(model)\n%s\n  end,\n}\n' "$2" >"$1/algorithms/rnea.lua"
}
mkdir -p "$tmp/esc/algorithms"
printf 'return setmetatable({}, {__index = function(t, k) error("no field " .. k) end})\n' >"$tmp/esc/algorithms/rnea.lua"
expect 1 "a recipe table whose __index errors" -- timeout 60 "$mbdc" generate "$cp" --templates "$tmp/esc" --functions rnea -o "$tmp/g"
grep -q "esc/algorithms/rnea.lua:1: no field name" "$tmp/err" || { echo "FAIL: __index error not located"; cat "$tmp/err"; fail=$((fail + 1)); }
printf 'return {name = "rnea", summary = "x", returns = "void", params = {1}, build = function() end}\n' >"$tmp/esc/algorithms/rnea.lua"
expect 1 "a params entry that is not a table" -- timeout 60 "$mbdc" generate "$cp" --templates "$tmp/esc" --functions rnea -o "$tmp/g"
grep -q "params\[1\] must be a table" "$tmp/err" || { echo "FAIL: params[1] message"; cat "$tmp/err"; fail=$((fail + 1)); }
# the generated code's own names (mbdc_zero, mbdc_sincos_*, the parts' mbdc_lv) are not parameters
printf 'return {name = "rnea", summary = "x", returns = "void",\n  params = {{name = "q", role = "q"}, {name = "mbdc_lv", role = "out_nv"}}, build = function() end}\n' >"$tmp/esc/algorithms/rnea.lua"
expect 1 "a parameter named mbdc_lv" -- timeout 60 "$mbdc" generate "$cp" --templates "$tmp/esc" --functions rnea -o "$tmp/g"
grep -q "params\[2\] needs a C identifier 'name' (not starting with 'pivot' or 'mbdc_')" "$tmp/err" ||
  { echo "FAIL: mbdc_lv parameter message"; cat "$tmp/err"; fail=$((fail + 1)); }
printf 'return {name = "rnea", summary = "x", returns = "void",\n  params = setmetatable({}, {__len = function() error("no length") end}), build = function() end}\n' >"$tmp/esc/algorithms/rnea.lua"
expect 1 "a params list whose __len errors" -- timeout 60 "$mbdc" stats "$cp" --templates "$tmp/esc" --functions rnea
grep -q "esc/algorithms/rnea.lua:2: no length" "$tmp/err" || { echo "FAIL: __len error not located"; cat "$tmp/err"; fail=$((fail + 1)); }
recipe "$tmp/loop" '    local n = 0
    while true do n = n + 1 end'
expect 1 "a recipe that never ends" -- timeout 120 "$mbdc" generate "$cp" --templates "$tmp/loop" --functions rnea -o "$tmp/g" --lua-time 0.5
grep -q "loop/algorithms/rnea.lua:6: .*algorithms/rnea.lua ran past the time limit (0.5 s of CPU time per template run); raise it with --lua-time" "$tmp/err" ||
  { echo "FAIL: time limit message"; cat "$tmp/err"; fail=$((fail + 1)); }
# what escapes the hook is stopped by the watchdog 2 s of CPU past the limit (timeout: a hang
# fails with 124): an xpcall handler that never returns (Lua runs it for the hook's error with
# hooks off), a plain error() under such a handler, one long backtracking string.find (C code that
# does not return to Lua); and an error object whose __tostring loops (mbdc never calls it)
recipe "$tmp/xp1" '    xpcall(function() while true do end end, function() while true do end end)'
recipe "$tmp/xp2" '    xpcall(function() error("x") end, function() while true do end end)'
recipe "$tmp/xp3" '    error(setmetatable({}, {__tostring = function() while true do end end}))'
recipe "$tmp/xp4" '    string.find(string.rep("a", 30000), ".-.-.-.-.-.-.-.-.-b")'
for x in xp1 xp2 xp3 xp4; do
  expect 1 "the watchdog ($x)" -- timeout 60 "$mbdc" generate "$cp" --templates "$tmp/$x" \
    --functions rnea -o "$tmp/g" --lua-time 0.5
  grep -Eq "$x/algorithms/rnea.lua still ran 2 s of CPU time past the time limit \(0.5 s per template run\)|ran past the time limit|error object is a table value" "$tmp/err" ||
    { echo "FAIL: the watchdog ($x): message"; cat "$tmp/err"; fail=$((fail + 1)); }
done
# the expression graph a recipe builds is held to --lua-memory too (it grew ~100 MB per CPU second
# with no bound but the time limit)
recipe "$tmp/graph" '    local x = sym.input("q", 0)
    for i = 1, 1e12 do x = x * x + i end'
expect 1 "a graph without end" -- timeout 120 "$mbdc" generate "$cp" --templates "$tmp/graph" \
  --functions rnea -o "$tmp/g" --lua-memory 64
grep -q "graph/algorithms/rnea.lua:6: the memory limit is reached: this function's expression graph would pass 64 MiB; raise it with --lua-memory" "$tmp/err" ||
  { echo "FAIL: the graph's memory limit: message"; cat "$tmp/err"; fail=$((fail + 1)); }
! grep -q "stack traceback" "$tmp/err" || # a limit is not the template's fault: no traceback
  { echo "FAIL: the graph's memory limit: a traceback"; fail=$((fail + 1)); }
recipe "$tmp/bomb" '    local t = {}
    for i = 1, 1e12 do t[i] = {i} end'
expect 1 "a recipe that allocates without end" -- timeout 120 "$mbdc" generate "$cp" --templates "$tmp/bomb" --functions rnea -o "$tmp/g" --lua-memory 64
grep -q "bomb/algorithms/rnea.lua: the Lua memory limit is reached (64 MiB in all); raise it with --lua-memory" "$tmp/err" ||
  { echo "FAIL: memory limit message"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "--lua-time bad" -- "$mbdc" generate "$cp" --lua-time soon -o "$tmp/g"
expect 2 "--lua-memory negative" -- "$mbdc" stats "$cp" --lua-memory -5
expect 0 "no limits" -- "$mbdc" stats "$cp" --lua-time 0 --lua-memory 0
# --parts N: a function of more than 3 N statements in static parts of about N; 0 never cuts
expect 2 "--parts bad" -- "$mbdc" generate "$cp" --parts soon -o "$tmp/g"
grep -q -- "--parts takes a number of statements (0: never cut), not 'soon'" "$tmp/err" ||
  { echo "FAIL: --parts message"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "--parts negative" -- "$mbdc" generate "$cp" --parts -3 -o "$tmp/g"
expect 2 "--parts is not an option of stats" -- "$mbdc" stats "$cp" --parts 10
expect 0 "--parts 5" -- "$mbdc" generate "$cp" -q --functions aba --parts 5 -o "$tmp/parts"
grep -q "^static void cart_pole_aba_part0(" "$tmp"/parts/*_dynamics.c ||
  { echo "FAIL: --parts 5 did not cut aba"; fail=$((fail + 1)); }
expect 0 "--parts 0" -- "$mbdc" generate "$cp" -q --functions aba --parts 0 -o "$tmp/parts0"
! grep -q "_part0(" "$tmp"/parts0/*_dynamics.c ||
  { echo "FAIL: --parts 0 cut aba"; fail=$((fail + 1)); }
mkdir -p "$tmp/ro/c"
printf 'return function(d)\n  rawset(d, "prefix", "evil")\n  return ""\nend\n' >"$tmp/ro/c/header.lua"
expect 1 "a render template that rawsets the render table" -- timeout 60 "$mbdc" generate "$cp" --templates "$tmp/ro" -o "$tmp/ro_out"
grep -q "ro/c/header.lua:2: attempt to modify a read-only table" "$tmp/err" || { echo "FAIL: rawset on d"; cat "$tmp/err"; fail=$((fail + 1)); }
printf 'return function(d)\n  local _, raw = pairs(d.functions[1])\n  raw.cname = "evil"\n  return ""\nend\n' >"$tmp/ro/c/header.lua"
expect 1 "a render template that writes through pairs" -- timeout 60 "$mbdc" generate "$cp" --templates "$tmp/ro" -o "$tmp/ro_out"
grep -q "ro/c/header.lua:3: attempt to modify a read-only table" "$tmp/err" || { echo "FAIL: write through pairs"; cat "$tmp/err"; fail=$((fail + 1)); }
[ -e "$tmp/ro_out" ] && [ -n "$(ls -A "$tmp/ro_out")" ] && { echo "FAIL: a refused template left files"; fail=$((fail + 1)); }
# --templates DIR itself: I/O problems are errors (2), names that nothing reads are warnings
expect 2 "--templates that does not exist" -- "$mbdc" generate "$cp" --templates "$tmp/no-such-dir" -o "$tmp/g"
grep -q "mbdc: error: --templates $tmp/no-such-dir: No such file or directory" "$tmp/err" || { echo "FAIL: missing --templates message"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "--templates that is a file" -- "$mbdc" stats "$cp" --templates "$cp"
grep -q "not a directory" "$tmp/err" || { echo "FAIL: --templates file message"; fail=$((fail + 1)); }
mkdir -p "$tmp/badtpl"
touch "$tmp/badtpl/algorithms"
expect 2 "--templates with a file named algorithms" -- "$mbdc" generate "$cp" --templates "$tmp/badtpl" -o "$tmp/g"
grep -q "badtpl/algorithms is not a directory" "$tmp/err" || { echo "FAIL: algorithms file message"; fail=$((fail + 1)); }
rm "$tmp/badtpl/algorithms"
mkdir -p "$tmp/badtpl/c" "$tmp/badtpl/algorithms/rnea.lua"
ln -s "$tmp/nowhere.lua" "$tmp/badtpl/c/header.lua"
expect 2 "--templates with unreadable templates" -- "$mbdc" generate "$cp" --templates "$tmp/badtpl" -o "$tmp/g"
grep -q "cannot read $tmp/badtpl/c/header.lua: No such file or directory" "$tmp/err" &&
  grep -q "cannot read $tmp/badtpl/algorithms/rnea.lua: not a regular file" "$tmp/err" ||
  { echo "FAIL: unreadable template messages"; cat "$tmp/err"; fail=$((fail + 1)); }
if [ "$(id -u)" -ne 0 ]; then # root reads anything
  rm -rf "$tmp/badtpl" && mkdir -p "$tmp/badtpl/c" && echo 'return function() return "" end' >"$tmp/badtpl/c/model.lua"
  chmod 000 "$tmp/badtpl/c/model.lua"
  expect 2 "--templates with a file without read permission" -- "$mbdc" generate "$cp" --templates "$tmp/badtpl" -o "$tmp/g"
  grep -q "cannot read .*c/model.lua: Permission denied" "$tmp/err" || { echo "FAIL: permission message"; fail=$((fail + 1)); }
fi
mkdir -p "$tmp/typo/algorithms" "$tmp/typo/c"
cp "$src/templates/algorithms/rnea.lua" "$tmp/typo/algorithms/rnae.lua"
cp "$src/templates/c/header.lua" "$tmp/typo/c/hedaer.lua"
cp "$src/templates/algorithms/crba.lua" "$tmp/typo/crba.lua"
printf 'local lib = import "my_lib"\nlocal r = import "rnea"\nreturn {name = "my_fn", summary = lib.summary, returns = "void", params = r.params, build = r.build}\n' >"$tmp/typo/algorithms/my_fn.lua"
printf 'return {summary = "rnea again"}\n' >"$tmp/typo/algorithms/my_lib.lua"
expect 0 "--templates with misspelt names" -- "$mbdc" generate "$cp" --templates "$tmp/typo" --functions rnea,my_fn -o "$tmp/typo_out"
grep -q "mbdc: warning: --templates $tmp/typo: algorithms/rnae.lua was not used: .*(did you mean algorithms/rnea.lua?)" "$tmp/err" &&
  grep -q "mbdc: warning: --templates $tmp/typo: c/hedaer.lua was not used: .*(did you mean c/header.lua?)" "$tmp/err" &&
  grep -q "mbdc: warning: --templates $tmp/typo: crba.lua was not used: recipes go in $tmp/typo/algorithms/" "$tmp/err" &&
  grep -q "mbdc: note: .*the built-in ones are algorithms/{aba, .*, cfa, .*, rnea, .*}.lua, c/{batch, check, check_batch, check_compare, check_coupled, check_fd, check_params, common, epilogue_contact, header, identification, model, model_header, project, rcr, source}.lua and the C they write out, c/{sincos_double, sincos_float}.c" "$tmp/err" ||
  { echo "FAIL: misspelt template warnings"; cat "$tmp/err"; fail=$((fail + 1)); }
if grep -q "my_fn.lua\|my_lib.lua" "$tmp/err"; then
  echo "FAIL: a recipe named by --functions or an imported module was reported unused"; fail=$((fail + 1))
fi
grep -q "void cart_pole_my_fn(" "$tmp/typo_out/cart_pole_dynamics.c" || { echo "FAIL: my_fn not generated"; fail=$((fail + 1)); }
expect 0 "stats with a misspelt recipe" -- "$mbdc" stats "$cp" --templates "$tmp/typo" --functions rnea
grep -q "algorithms/rnae.lua was not used" "$tmp/err" && ! grep -q "hedaer" "$tmp/err" ||
  { echo "FAIL: stats warnings (render templates do not run in stats)"; cat "$tmp/err"; fail=$((fail + 1)); }
# How recipes are found (docs/templates.md): DIR/algorithms/NAME.lua replaces a built-in
# function's recipe, one a library makes (com, a line of the registry) as one with a file (nle);
# a library comes from DIR/lib/NAME.lua, else DIR/algorithms/NAME.lua (its old place), else the
# built-in lib/NAME.lua.
own=$tmp/own
mkdir -p "$own/algorithms" "$own/lib"
printf 'local r = import("mass_props").recipe("com")\nr.summary = "my own com"\nreturn r\n' >"$own/algorithms/com.lua"
sed 's/summary = "bias forces/summary = "my own nle/' "$src/templates/algorithms/nle.lua" >"$own/algorithms/nle.lua"
expect 0 "--templates replacing com and nle" -- "$mbdc" generate "$cp" --templates "$own" --functions com,nle,energy -o "$tmp/own_out"
grep -q "my own com" "$tmp/own_out/cart_pole_dynamics.h" && grep -q "my own nle" "$tmp/own_out/cart_pole_dynamics.h" &&
  ! grep -q "was not used" "$tmp/err" || { echo "FAIL: com and nle replaced"; cat "$tmp/err"; fail=$((fail + 1)); }
rm "$own/algorithms/com.lua" "$own/algorithms/nle.lua"
sed 's/summary = r.summary/summary = "old place " .. r.summary/' "$src/templates/lib/mass_props.lua" >"$own/algorithms/mass_props.lua"
expect 0 "--templates replacing a library in algorithms/" -- "$mbdc" generate "$cp" --templates "$own" --functions com,energy -o "$tmp/own_out"
[ "$(grep -c "old place" "$tmp/own_out/cart_pole_dynamics.h")" -eq 2 ] && ! grep -q "was not used" "$tmp/err" ||
  { echo "FAIL: a library replaced in algorithms/"; cat "$tmp/err"; fail=$((fail + 1)); }
sed 's/summary = r.summary/summary = "lib " .. r.summary/' "$src/templates/lib/mass_props.lua" >"$own/lib/mass_props.lua"
printf 'return {}\n' >"$own/lib/com.lua"
expect 0 "--templates replacing a library in lib/ and algorithms/" -- "$mbdc" generate "$cp" --templates "$own" --functions com,energy -o "$tmp/own_out"
[ "$(grep -c "lib the centre\|lib e\[0\]" "$tmp/own_out/cart_pole_dynamics.h")" -eq 2 ] &&
  grep -q "mbdc: warning: --templates $own: algorithms/mass_props.lua was not used: the library of that name is read from lib/" "$tmp/err" &&
  grep -q "mbdc: warning: --templates $own: lib/com.lua was not used: that is a function's name: its recipe goes in algorithms/" "$tmp/err" &&
  grep -q "the built-in ones are algorithms/{.*, com, .*, rcr_refine_2, .*}.lua, lib/{.*, mass_props, .*, spatial}.lua, c/" "$tmp/err" ||
  { echo "FAIL: a library in lib/ and algorithms/"; cat "$tmp/err"; fail=$((fail + 1)); }
printf 'return {}\n' >"$own/lib/mass_props.lua"
expect 1 "--templates: a library without the registry's entry" -- "$mbdc" stats "$cp" --templates "$own" --functions com
grep -q 'the recipe of com is import("mass_props").recipe("com"), but the library has no function recipe' "$tmp/err" ||
  { echo "FAIL: a library without the registry's entry: message"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 2 "a library is no function" -- "$mbdc" stats "$cp" --functions spatial
grep -q "mbdc: error: --functions: 'spatial' is not a recipe but a library the recipes import (lib/spatial.lua)" "$tmp/err" ||
  { echo "FAIL: a library is no function: message"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 0 "generate cart_pole" -- "$mbdc" generate "$cp" -o "$tmp/g"
# the velocity coordinates' names and the q entry each is the rate of (-1: a quaternion's or a
# floating joint's, integrated on the manifold): gimbal has a helical and a spherical joint,
# quadruped a floating base (q = [x y z quaternion], v = [linear; angular] in the child frame)
expect 0 "generate gimbal" -- "$mbdc" generate "$src/examples/gimbal.mbd" -o "$tmp/gimbal"
grep -qF 'const char *const gimbal_coord_names[GIMBAL_NV] = {"screw", "ball.1", "ball.2", "ball.3"};' \
  "$tmp/gimbal/gimbal_dynamics.c" &&
  grep -qF 'const int gimbal_coord_iq[GIMBAL_NV] = {0, -1, -1, -1};' "$tmp/gimbal/gimbal_dynamics.c" ||
  { echo "FAIL: gimbal's coordinate names or q indices"; fail=$((fail + 1)); }
expect 0 "generate quadruped" -- "$mbdc" generate "$src/examples/quadruped.mbd" -o "$tmp/quad"
grep -qF 'quadruped_coord_names[QUADRUPED_NV] = {"base.1", "base.2", "base.3", "base.4", "base.5", "base.6", "lf_haa",' \
  "$tmp/quad/quadruped_dynamics.c" &&
  grep -qF 'quadruped_coord_iq[QUADRUPED_NV] = {-1, -1, -1, -1, -1, -1, 7, 8, 9,' "$tmp/quad/quadruped_dynamics.c" ||
  { echo "FAIL: quadruped's coordinate names or q indices"; fail=$((fail + 1)); }
for f in cart_pole_dynamics.h cart_pole_dynamics.c cart_pole_model.c cart_pole_model.h cart_pole_check.c; do
  [ -s "$tmp/g/$f" ] || { echo "FAIL: generate wrote no $f"; fail=$((fail + 1)); }
done
# one moving body: cfa's elimination order has no neighbours at all (clang's UBSan once caught
# pointer arithmetic on the empty neighbour array, gen_model.c)
printf 'model one;\nbody b { mass 1; inertia 1 1 1; }\njoint j revolute world -> b { axis 0 0 1; }\n' >"$tmp/one.mbd"
expect 0 "generate a one-body model" -- "$mbdc" generate "$tmp/one.mbd" -o "$tmp/one"
[ -s "$tmp/one/one_dynamics.c" ] && grep -q 'one_cfa' "$tmp/one/one_dynamics.c" ||
  { echo "FAIL: one-body model: no cfa generated"; fail=$((fail + 1)); }
# no moving joint: a valid model that check warns about and generate refuses
printf 'model still;\nbody b { mass 1; inertia 1 1 1; }\njoint j fixed world -> b;\n' >"$tmp/still.mbd"
expect 0 "check a model without a moving joint" -- "$mbdc" check "$tmp/still.mbd"
grep -q "warning: the model has no moving joint" "$tmp/err" ||
  { echo "FAIL: check did not warn about a model without a moving joint"; fail=$((fail + 1)); }
expect 1 "generate a model without a moving joint" -- "$mbdc" generate "$tmp/still.mbd" -o "$tmp/still"
grep -q "error: the model has no moving joint" "$tmp/err" ||
  { echo "FAIL: generate of a model without a moving joint"; fail=$((fail + 1)); }
# a model name that is not a prefix: check warns, generate refuses without --prefix
printf 'model _low;\nbody b { mass 1; inertia 1 1 1; }\njoint j revolute world -> b { axis 0 0 1; }\n' >"$tmp/low.mbd"
expect 0 "check a model whose name cannot be a prefix" -- "$mbdc" check "$tmp/low.mbd"
grep -q "warning: the model name '_low' is reserved" "$tmp/err" ||
  { echo "FAIL: check did not warn about the model name"; fail=$((fail + 1)); }
expect 0 "generate it with --prefix" -- "$mbdc" generate "$tmp/low.mbd" --prefix low -o "$tmp/low"
# a point mass merged off the origin: a body without inverse inertia, cfa left out with a note
# (the recipe used to stop the whole generation; found by fuzz_pipeline)
printf 'model pm;\nbody hub { }\nbody w { mass 3; }\njoint turn revolute world -> hub { axis 0 0 1; }\njoint weld fixed hub -> w { origin xyz 1.1 0.2 0.3; }\n' >"$tmp/pm.mbd"
expect 0 "generate a point mass merged off the origin" -- "$mbdc" generate "$tmp/pm.mbd" -o "$tmp/pm"
grep -q "note: cfa is not generated: body 'hub' has no inverse inertia" "$tmp/err" ||
  { echo "FAIL: no note about cfa for a point mass"; fail=$((fail + 1)); }
expect 0 "generate into a directory that does not exist yet" -- "$mbdc" generate "$cp" -o "$tmp/deep/a/b"
[ -s "$tmp/deep/a/b/cart_pole_check.c" ] || { echo "FAIL: -o a/b/c not created"; fail=$((fail + 1)); }
expect 2 "--cfa-order bad" -- "$mbdc" generate "$cp" --cfa-order zigzag -o "$tmp/g"
grep -q "cfa-order takes odd-even or tips" "$tmp/err" || { echo "FAIL: --cfa-order message"; fail=$((fail + 1)); }
expect 0 "stats of cfa in one order" -- "$mbdc" stats "$src/examples/space_robot.mbd" --functions cfa --cfa-order odd-even
grep -q '^cfa\[odd-even\]' "$tmp/out" || { echo "FAIL: stats cfa[odd-even] row"; cat "$tmp/out"; fail=$((fail + 1)); }
expect 0 "stats --json with cfa" -- "$mbdc" stats "$src/examples/space_robot.mbd" --json
grep -Eq '"cfa": \{"order": "tips", "tips": \{"generated": true, "mul": [0-9]+.*"depth": [0-9]+, "solve_depth": [0-9]+.*"odd-even": \{' "$tmp/out" ||
  { echo "FAIL: stats --json cfa member"; cat "$tmp/out"; fail=$((fail + 1)); }
expect 0 "stats --json" -- "$mbdc" stats "$cp" --json
grep -Eq '^\{"functions": \{"rnea": \{"mul": [0-9]+, "add": [0-9]+, "div": [0-9]+, "sqrt": [0-9]+, "trig": [0-9]+, "live": [0-9]+, "live_bytes": [0-9]+, "code_bytes": [0-9]+, "frame": "body"\}' "$tmp/out" ||
  { echo "FAIL: stats --json shape"; cat "$tmp/out"; fail=$((fail + 1)); }
# crba builds each body's columns as soon as its composite inertia is final (crba.lua): on a
# humanoid at most 100 values live at once (72 on 2026-11-28; 196 when every composite was built
# first, the other limbs' held meanwhile)
expect 0 "stats --json of a humanoid's crba" -- "$mbdc" stats "$src/examples/urdf/simple_humanoid.urdf" \
  --floating-base --functions crba --json
live=$(sed -n 's/.*"crba": {[^}]*"live": \([0-9]*\).*/\1/p' "$tmp/out")
[ -n "$live" ] && [ "$live" -le 100 ] ||
  { echo "FAIL: crba of simple_humanoid: $live values live at once (at most 100)"; cat "$tmp/out"; fail=$((fail + 1)); }

# stats: the name column is as wide as the longest name (frame_acceleration_bias, contact_fd_reg,
# a --fuse name, the cfa orders), so every row's numbers stand under the header's
aligned() { # aligned WHAT: the second field of the header and of every row ends in one column
  awk -v what="$1" '
    /^function / { match($0, /^[^ ]+ +[^ ]+/); w = RLENGTH; next }
    w && $2 ~ /^[0-9]/ { match($0, /^[^ ]+ +[^ ]+/)
                         if (RLENGTH != w) { print "FAIL: stats " what ": misaligned: " $0
                                             bad = 1 } }
    END { exit bad || !w }' "$tmp/out" || fail=$((fail + 1))
}
expect 0 "stats of solo12 in contact" -- "$mbdc" stats -q "$src/examples/urdf/solo12.urdf" \
  --floating-base --contacts FL_FOOT,FR_FOOT,HL_FOOT,HR_FOOT
aligned solo12
grep -q 'K = 1 round (' "$tmp/out" && ! grep -q 'K = 1 rounds' "$tmp/out" ||
  { echo "FAIL: stats: K = 1 rounds"; grep 'K = ' "$tmp/out"; fail=$((fail + 1)); }
expect 0 "stats of a model with loops and a long --fuse name" -- "$mbdc" stats -q \
  "$src/examples/five_bar.mbd" --fuse loops_fused_into_one_function=loop_residual,fd_loops
grep -q '^loops_fused_into_one_function ' "$tmp/out" ||
  { echo "FAIL: no fused row"; fail=$((fail + 1)); }
aligned five_bar
# plurals: one of a thing is not "1 things"
expect 0 "stats of a one-body model" -- "$mbdc" stats "$tmp/one.mbd" --functions rnea
grep -q '^one: nq 1, nv 1, 1 moving body (' "$tmp/out" ||
  { echo "FAIL: stats: 1 moving body"; head -2 "$tmp/out"; fail=$((fail + 1)); }
expect 0 "check of a one-body model" -- "$mbdc" check "$tmp/one.mbd"
grep -q "^frames (1: 1 body's own, 0 declared)$" "$tmp/out" ||
  { echo "FAIL: check: 1 body's own"; cat "$tmp/out"; fail=$((fail + 1)); }
cat >"$tmp/one_row.mbd" <<'EOF'
model one_row;
body a { mass 1; com 0.5 0 0; inertia 0.1 0.1 0.1; }
body b { mass 1; com 0.5 0 0; inertia 0.1 0.1 0.1; }
joint j1 revolute world -> a { axis 0 0 1; }
joint j2 revolute a -> b { origin xyz 1 0 0; axis 0 0 1; }
loop rod ss b -> world { origin xyz 1 0 0; target xyz 1.5 0.5 0; distance 1.2; }
EOF
expect 0 "check of a loop with one row" -- "$mbdc" check "$tmp/one_row.mbd"
mobility='^  mobility: 2 velocity coordinates - 1 independent constraint row = 1 degree of freedom$'
grep -q "$mobility" "$tmp/out" ||
  { echo "FAIL: check: 1 independent constraint row"; cat "$tmp/out"; fail=$((fail + 1)); }
cat >"$tmp/one_node.mbd" <<'EOF'
model one_node;
body arm flexible {
  nodes { n0 xyz 0.5 0 0 mass 1 inertia 0.01 0.01 0.01; }
  modes { bend { n0 0 0 1 0 1 0; } }
  stiffness { 100; }
}
joint j revolute world -> arm { axis 0 0 1; }
EOF
expect 0 "check of a flexible body with one node" -- "$mbdc" check "$tmp/one_node.mbd"
grep -q '^  arm  nodal data, 1 node, 1 mode: ' "$tmp/out" ||
  { echo "FAIL: check: 1 node"; grep nodal "$tmp/out"; fail=$((fail + 1)); }

# springs and the initial state: check lists them, generate and stats add passive_forces (only
# for a model with springs), the header declares the initial state
sp="$src/examples/spring_pendulum.mbd"
expect 0 "check a model with springs" -- "$mbdc" check "$sp"
grep -q '^springs (3)' "$tmp/out" && grep -q '^initial state (2 joints' "$tmp/out" ||
  { echo "FAIL: check lists no springs or initial state"; cat "$tmp/out"; fail=$((fail + 1)); }
expect 0 "stats of a model with springs" -- "$mbdc" stats "$sp"
grep -q '^passive_forces ' "$tmp/out" || { echo "FAIL: stats counts no passive_forces"; fail=$((fail + 1)); }
expect 0 "stats of a model without springs" -- "$mbdc" stats "$cp"
grep -q '^passive_forces ' "$tmp/out" && { echo "FAIL: passive_forces without springs"; fail=$((fail + 1)); }
expect 0 "generate a model with springs" -- "$mbdc" generate "$sp" -o "$tmp/sp"
grep -q 'spring_pendulum_passive_forces(const double q' "$tmp/sp/spring_pendulum_dynamics.h" &&
  grep -q 'extern const double spring_pendulum_q_initial\[SPRING_PENDULUM_NQ\];' "$tmp/sp/spring_pendulum_dynamics.h" ||
  { echo "FAIL: header of a model with springs"; fail=$((fail + 1)); }
printf 'body a { mass 1; inertia 1 1 1; }\njoint j revolute world -> a;\nspring s a -> a { stiffness -1; }\n' >"$tmp/badspring.mbd"
expect 1 "a spring error" -- "$mbdc" check "$tmp/badspring.mbd"
grep -q 'badspring.mbd:3:15: error: spring .s. connects body .a. to itself' "$tmp/err" &&
  grep -q 'badspring.mbd:3:19: error: .stiffness. must not be negative (it is -1)' "$tmp/err" ||
  { echo "FAIL: spring errors"; cat "$tmp/err"; fail=$((fail + 1)); }

# coupled loops: apart where they share head joints only; one group, said so, where a shared joint
# is dependent (the model's own 'independent' statement makes q2 and q3 dependent)
nl="$src/tests/models/nested_loops.mbd"
expect 0 "check nested loops" -- "$mbdc" check "$nl"
sed -n "/0 (from the chains' ends)/,/1 (from the chains' starts)/p" "$tmp/out" >"$tmp/sel0"
grep -q '(coupled loops: the groups share head joints' "$tmp/sel0" &&
  ! grep -q 'coupled loops in one group' "$tmp/sel0" ||
  { echo "FAIL: nested loops not reported apart"; cat "$tmp/out"; fail=$((fail + 1)); }
sed 's/^model nested_loops;/model nested_joined;/' "$nl" >"$tmp/joined.mbd"
echo 'independent q1 qa1 qb2;' >>"$tmp/joined.mbd"
expect 0 "check nested loops with a dependent shared joint" -- "$mbdc" check "$tmp/joined.mbd"
grep -A1 "0 (the model's 'independent'): q2 q3 qa2 qb1" "$tmp/out" | grep -q 'group 0: outer inner;' &&
  grep -q '(coupled loops in one group: they share a dependent or tail joint' "$tmp/out" ||
  { echo "FAIL: joined coupled loops not reported"; cat "$tmp/out"; fail=$((fail + 1)); }

# a loop hung from another's tail: the model's 'independent' makes the shared joint q2 a dependent
# of the outer loop, the inner loop's own dependents lie beyond it (and it has a head, qd1)
expect 0 "check hung loops" -- "$mbdc" check "$src/tests/models/hung_loops.mbd"
grep -A2 "0 (the model's 'independent'): q1 q2 qd2 qd3" "$tmp/out" |
  grep -q 'group 1: inner; base L1; hung from group 0 at L2; head qd1; 0 tail independents' &&
  grep -q "(coupled loops: a group hangs from another's tail" "$tmp/out" ||
  { echo "FAIL: hung loop not reported"; cat "$tmp/out"; fail=$((fail + 1)); }

# the sines and cosines: the batch function written out once (default), the C library's (--trig libm), and
# --trig-input's p_trig and _sc twins; a model without joint angles says so
ur5="$src/examples/urdf/ur5.urdf"
expect 0 "generate with the built-in sincos" -- "$mbdc" generate "$ur5" -q -o "$tmp/trig_b"
[ "$(grep -c '^static inline void mbdc_sincos(int n, ' "$tmp/trig_b/ur5_dynamics.c")" -eq 1 ] &&
  grep -q '^#include <float.h>' "$tmp/trig_b/ur5_dynamics.c" &&
  ! grep -q 'const double t[0-9]* = \(sin\|cos\)(' "$tmp/trig_b/ur5_dynamics.c" ||
  { echo "FAIL: the built-in sincos"; fail=$((fail + 1)); }
expect 0 "generate --trig libm" -- "$mbdc" generate "$ur5" -q --trig libm -o "$tmp/trig_l"
grep -q 'const double t0 = sin(q\[1\]);' "$tmp/trig_l/ur5_dynamics.c" &&
  ! grep -q 'mbdc_sincos' "$tmp/trig_l/ur5_dynamics.c" ||
  { echo "FAIL: --trig libm"; fail=$((fail + 1)); }
expect 2 "--trig with a bad value" -- "$mbdc" generate "$ur5" --trig fast -o "$tmp/trig_x"
grep -q "trig takes builtin or libm, not 'fast'" "$tmp/err" || { echo "FAIL: --trig fast message"; fail=$((fail + 1)); }
expect 0 "generate --trig-input" -- "$mbdc" generate "$ur5" -q --trig-input -o "$tmp/trig_i"
grep -q '^#define UR5_NSC 12 ' "$tmp/trig_i/ur5_dynamics.h" &&
  grep -q '^void ur5_trig(const double q\[UR5_NQ\], double sc\[UR5_NSC\]);' "$tmp/trig_i/ur5_dynamics.h" &&
  grep -q '^void ur5_rnea_sc(const double q\[UR5_NQ\], const double sc\[UR5_NSC\], const double v' "$tmp/trig_i/ur5_dynamics.h" &&
  ! grep -q 'ur5_integrate_sc' "$tmp/trig_i/ur5_dynamics.h" ||
  { echo "FAIL: --trig-input declarations"; fail=$((fail + 1)); }
expect 1 "--functions trig without --trig-input" -- "$mbdc" generate "$ur5" -q --functions trig -o "$tmp/trig_n"
grep -q "algorithms/trig.lua: params\[2\]: role 'out_sc' needs --trig-input" "$tmp/err" && [ ! -e "$tmp/trig_n/ur5_dynamics.h" ] ||
  { echo "FAIL: trig without --trig-input"; cat "$tmp/err"; fail=$((fail + 1)); }
printf 'model slider;\nbody b { mass 1; inertia 1 1 1; }\njoint j prismatic world -> b { axis 1 0 0; }\n' >"$tmp/slider.mbd"
expect 0 "--trig-input without joint angles" -- "$mbdc" generate "$tmp/slider.mbd" --trig-input -o "$tmp/trig_s"
grep -q "note: --trig-input: the model has no revolute, continuous or helical joint" "$tmp/err" &&
  ! grep -q 'slider_trig\|_NSC' "$tmp/trig_s/slider_dynamics.h" ||
  { echo "FAIL: --trig-input without angles"; cat "$tmp/err"; fail=$((fail + 1)); }

# --frame (docs/frames.md): the values, a flexible model, the chosen variant in the files, and
# stats --frame all: on every example and robot, auto never has more operations than body
cp5="$src/examples/five_bar.mbd"
expect 2 "--frame with a bad value" -- "$mbdc" generate "$cp5" --frame centroid -o "$tmp/fr_x"
grep -q "frame takes body, joint, com, world or auto, not 'centroid'" "$tmp/err" ||
  { echo "FAIL: --frame centroid message"; fail=$((fail + 1)); }
expect 2 "generate --frame all (stats only)" -- "$mbdc" generate "$cp5" --frame all -o "$tmp/fr_x"
[ ! -e "$tmp/fr_x" ] || { echo "FAIL: --frame all wrote files"; fail=$((fail + 1)); }
expect 1 "--frame world on a flexible model" -- "$mbdc" generate "$src/examples/flexible_arm.mbd" \
  --frame world -o "$tmp/fr_f"
grep -q "flexible_arm.mbd: error: --frame world: .*('forearm' has modes); use --frame body" "$tmp/err" &&
  [ ! -e "$tmp/fr_f" ] || { echo "FAIL: --frame world, flexible"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 0 "--frame auto on a flexible model" -- "$mbdc" stats "$src/examples/flexible_arm.mbd" --frame all
expect 0 "generate --frame world" -- "$mbdc" generate "$cp5" -q --frame world -o "$tmp/fr_w"
grep -q '^/\* inverse dynamics: tau = .*; frames: world\. \*/$' "$tmp/fr_w/five_bar_dynamics.c" &&
  grep -q "^ \* Computed in world-aligned frames at the world's origin (--frame)\. \*/$" \
    "$tmp/fr_w/five_bar_dynamics.h" &&
  grep -q '^/\* forward kinematics.*sin/cos\. \*/$' "$tmp/fr_w/five_bar_dynamics.c" ||
  { echo "FAIL: --frame world in the files"; fail=$((fail + 1)); }
expect 0 "stats --frame all --json" -- "$mbdc" stats "$cp5" --frame all --json --functions rnea,fk
grep -Eq '"rnea": \{[^}]*"frame": "(body|joint|com|world)", "frames": \{"body": [0-9]+, "joint": [0-9]+, "com": [0-9]+, "world": [0-9]+\}\}' "$tmp/out" &&
  grep -Eq '"fk": \{[^}]*"frame": "body", "frames": \{"body": [0-9]+, "joint": null, "com": null, "world": null\}' "$tmp/out" ||
  { echo "FAIL: stats --frame all --json shape"; cat "$tmp/out"; fail=$((fail + 1)); }
for m in "$src"/examples/*.mbd "$src"/examples/urdf/*.urdf; do
  fb=()
  case $m in *.urdf) grep -qx "$(basename "$m" .urdf)" "$src/examples/urdf/floating_base.txt" && fb=(--floating-base) ;; esac
  expect 0 "stats --frame all $(basename "$m")" -- "$mbdc" stats "$m" -q "${fb[@]}" --frame all
  # the variant columns: body joint com world, the generated one starred; auto's ≤ body's
  awk -v m="$(basename "$m")" '
    $1 ~ /^cfa/ { next }
    { n = 0
      for (k = 1; k <= NF; k++) if ($k ~ /^[0-9]+\*?$/ || $k == "-") col[++n] = $k
      if (n < 4) next
      body = col[n - 3]; star = ""
      for (k = n - 3; k <= n; k++) if (col[k] ~ /\*$/) star = col[k]
      if (star == "") { print "FAIL: " m ", " $1 ": no variant starred"; bad = 1; next }
      sub(/\*$/, "", star); sub(/\*$/, "", body)
      if (star + 0 > body + 0) { print "FAIL: " m ", " $1 ": auto " star " > body " body; bad = 1 } }
    END { exit bad }' "$tmp/out" || fail=$((fail + 1))
done

# A function whose expression graph would pass --lua-memory is refused before it is built, with
# the estimate (emit/gen_estimate.c): crba of a 3000-link chain used to build for about 15 minutes
# before reaching 4 GiB; a 200-link chain's crba (about 6e5 nodes, 29 MiB) fits in 64 MiB and not
# in 16, where the old code reached the limit after building.
bash "$src/bench/urdf_chain.sh" 3000 >"$tmp/chain3000.urdf"
bash "$src/bench/urdf_chain.sh" 200 >"$tmp/chain200.urdf"
start=$(date +%s)
expect 1 "crba of a 3000-link chain" -- "$mbdc" stats -q "$tmp/chain3000.urdf" --functions crba
[ $(($(date +%s) - start)) -le 30 ] || { echo "FAIL: the refusal took more than 30 s"; fail=$((fail + 1)); }
estimate="error: crba: its expression graph would take about [0-9.]* GiB (about 1.3e+08 nodes"
grep -q "$estimate" "$tmp/err" || { echo "FAIL: no estimate"; cat "$tmp/err"; fail=$((fail + 1)); }
expect 1 "crba of a 200-link chain in 16 MiB" -- "$mbdc" stats -q "$tmp/chain200.urdf" \
  --functions crba --frame body --lua-memory 16
grep -q "more than the 16 MiB --lua-memory allows" "$tmp/err" || { cat "$tmp/err"; fail=$((fail + 1)); }
expect 0 "crba of a 200-link chain in 64 MiB" -- "$mbdc" stats -q "$tmp/chain200.urdf" \
  --functions crba --frame body --lua-memory 64

# the inertial parameters check prints: standard and base counts (the base count's numerics:
# test_base_params); not computed for loops or flexible bodies, with the reason
expect 0 "check prints the inertial parameters" -- "$mbdc" check "$src/examples/arm7.mbd"
grep -q '^  standard  70 (10 per moving body' "$tmp/out" && grep -q '^  base      43 (' "$tmp/out" ||
  { echo "FAIL: check: arm7's 70 standard and 43 base parameters"; tail -4 "$tmp/out"; fail=$((fail + 1)); }
expect 0 "check of a loop: no base parameters" -- "$mbdc" check "$src/examples/five_bar.mbd"
grep -q '^  base      not computed (a model with closed loops' "$tmp/out" ||
  { echo "FAIL: check: five_bar's base parameters"; tail -4 "$tmp/out"; fail=$((fail + 1)); }
expect 0 "check of a flexible body: no base parameters" -- "$mbdc" check \
  "$src/examples/flexible_arm.mbd"
grep -q '^  base      not computed (a model with flexible bodies)' "$tmp/out" ||
  { echo "FAIL: check: flexible_arm's base parameters"; tail -4 "$tmp/out"; fail=$((fail + 1)); }

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
