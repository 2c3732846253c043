#!/usr/bin/env bash
# Controller functions: times and instruction counts of bench_controller (bench/bench_controller.c:
# the Panda's TCP Jacobian and Solo12's forward dynamics on its four feet, generated code against
# the runtime and MuJoCo 2.2.2), printed as the markdown section "Controller functions"; with
# BENCHMARKS_MD also written there, between the lines
#   <!-- controller: bench/controller.sh -->  and  <!-- /controller -->   (appended when absent).
#
# usage: bash bench/controller.sh BUILD_DIR [BENCHMARKS_MD]
#   BUILD_DIR configured with MBDC_BENCH=ON and bench_controller built
#   (cmake --build BUILD_DIR --target bench_controller).
# Environment: MBDC_BENCH_ARGS (passed to bench_controller when timing, e.g. "--reps 3"),
# MBDC_BENCH_CALLS (calls per callgrind dump, default 128: every one of the 64 states twice). The
# raw outputs are kept in BUILD_DIR/bench/controller/ (time.txt, callgrind.txt, instr.txt).
set -euo pipefail
build=${1:?usage: bash bench/controller.sh BUILD_DIR [BENCHMARKS_MD]}
md=${2:-}
calls=${MBDC_BENCH_CALLS:-128}
target=4
exe=$build/bench/bench_controller
[ -x "$exe" ] || { echo "controller.sh: no $exe (cmake --build $build --target bench_controller)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "controller.sh: valgrind is not installed" >&2; exit 2; }
out=$build/bench/controller
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== bench_controller: timing" >&2
# shellcheck disable=SC2086
"$exe" ${MBDC_BENCH_ARGS:-} >"$out/time.txt"
echo "== bench_controller: callgrind ($calls calls per dump)" >&2
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$exe" --callgrind "$calls" \
  >"$out/callgrind.txt" 2>"$tmp/cg.err" || { cat "$out/callgrind.txt" "$tmp/cg.err" >&2; exit 1; }
: >"$out/instr.txt"
for ((k = 1; ; k++)); do
  f="$tmp/cg.out.$k"
  [ -f "$f" ] || break
  awk -v calls="$calls" '
    /^desc: Trigger: Client Request: / { sub(/^desc: Trigger: Client Request: /, ""); name = $0 }
    /^summary:/ { instr = $2 }
    END { if (name != "") printf "instr %s %.0f\n", name, instr / calls }' "$f" >>"$out/instr.txt"
done

cache=$build/CMakeCache.txt
btype=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$cache")
btype_uc=$(echo "$btype" | tr '[:lower:]' '[:upper:]')
cflags=$(sed -n "s/^CMAKE_C_FLAGS_${btype_uc}:[A-Z]*=//p" "$cache")
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$cache")
timing=$(sed -n 's/^# timing: //p' "$out/time.txt")
mjver=$(sed -n 's/^# mujoco \([0-9][^:]*\):.*/\1/p' "$out/time.txt")

# The table: one row per function, times (median / minimum ns per call), ratios of medians,
# instructions per call and their ratios; a target row's MuJoCo ratio below 4 bold and marked ✗.
table() {
  echo "| robot | function | generated | runtime | MuJoCo | runtime ÷ generated | MuJoCo ÷ generated | generated instr | runtime instr | MuJoCo instr | runtime ÷ generated (instr) | MuJoCo ÷ generated (instr) | target ≥ $target× MuJoCo |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  awk -v target="$target" '
    function cell(x) { return x == "" ? "n/a" : x }
    function r(a, b) { return (a == "" || b == "") ? "n/a" : sprintf("%.1f", a / b) }
    FNR == 1 { file++ }
    file == 1 && $1 == "time" { med[$2, $3] = $4; mn[$2, $3] = $5; if (!($2 in seen)) { seen[$2] = 1; order[n++] = $2 } }
    file == 1 && $1 == "ratio" { ratio[$2, $3] = $4 }
    file == 2 && $1 == "instr" { ins[$2, $3] = $4 }
    END {
      robot["tcp_jacobian"] = "Panda"; robot["tcp_pose_jacobian"] = "Panda"; robot["contact_fd"] = "Solo12"
      for (i = 0; i < n; i++) {
        f = order[i]
        t = (f == "tcp_pose_jacobian") ? "(not a target)" : ""
        if (t == "" && ratio[f, "mujoco"] == "") t = "n/a"
        else if (t == "") t = (ratio[f, "mujoco"] + 0 >= target) ? sprintf("met (%.1f×)", ratio[f, "mujoco"]) : sprintf("**not met** (%.1f×) ✗", ratio[f, "mujoco"])
        mj = (f, "mujoco") in med ? med[f, "mujoco"] " / " mn[f, "mujoco"] : "n/a"
        printf "| %s | %s | %s / %s | %s / %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", robot[f], f,
          med[f, "generated"], mn[f, "generated"], med[f, "runtime"], mn[f, "runtime"], mj,
          r(med[f, "runtime"], med[f, "generated"]), r(med[f, "mujoco"], med[f, "generated"]),
          cell(ins[f, "generated"]), cell(ins[f, "runtime"]), cell(ins[f, "mujoco"]),
          r(ins[f, "runtime"], ins[f, "generated"]), r(ins[f, "mujoco"], ins[f, "generated"]), t
      }
    }' "$out/time.txt" "$out/instr.txt"
}

# The agreement lines of the run, as a table.
agreement() {
  echo "| quantity | compared with the generated code | worst relative difference | bound (--smoke) |"
  echo "|---|---|---|---|"
  awk '$1 == "check" { printf "| %s | %s | %s | %s |\n", $2, $3, $4, $6 }' "$out/time.txt"
}

section() {
  echo "<!-- controller: bench/controller.sh -->"
  echo "## Controller functions"
  echo
  echo "Written by \`bash bench/controller.sh $build${md:+ $md}\` on $(date -u +%Y-%m-%d) (this section only;"
  echo "the rest of the file is scripts/bench.sh's). One run on the same shared 2-core machine, whose"
  echo "other load moves times by tens of percent from run to run: compare the ratios of one row,"
  echo "measured side by side in one process; the instruction counts are exact."
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| CPU | $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | awk 'NR == 1'), $(nproc) cores ($(uname -sr)) |"
  echo "| compiler | $("$cc" --version | awk 'NR == 1') |"
  echo "| flags | build type $btype: \`$cflags\` (generated code: -std=c99; runtime and bench_controller.c: -std=c11) |"
  echo "| MuJoCo | ${mjver:-n/a}, Debian package libmujoco-dev $(dpkg-query -W -f='${Version}' libmujoco-dev 2>/dev/null || echo '?') (built by Debian, its own flags) |"
  echo "| timing | $timing; CLOCK_MONOTONIC, after a warm-up |"
  echo "| instructions | $(valgrind --version) --tool=callgrind, $calls calls per (function, implementation) after a warm-up of as many |"
  echo "| commands | \`cmake -S . -B $build -DMBDC_BENCH=ON -DMBDC_TESTS=OFF -DCMAKE_BUILD_TYPE=$btype\`, \`cmake --build $build --target bench_controller\`, \`bash bench/controller.sh $build${md:+ $md}\` |"
  echo
  cat <<'EOF'
Targets (issue): the generated frame Jacobian of the Panda's TCP at least 4× faster than MuJoCo's
`mj_jac` path, kinematics included, and Solo12's contact-constrained forward dynamics on its four
feet at least 4× faster than MuJoCo's forward dynamics with the same four constraints. What is
timed (`bench/bench_controller.c`, the same 64 random states for the three implementations, batch
by batch interleaved):

| function | generated | runtime | MuJoCo 2.2.2 |
|---|---|---|---|
| `tcp_jacobian`: 6 × 9 Jacobian of `panda_hand_tcp`, world axes | `panda_tcp_frame_jacobian_world` (model generated with `--frames panda_hand_tcp`) | `mb_frame_jacobian(local = 0)` | copy q; `mj_kinematics`, `mj_comPos`, the TCP origin from `panda_link7`'s `xpos` and `xmat`, `mj_jac` there |
| `tcp_pose_jacobian` (not a target: what a controller reads per step) | `panda_tcp_frame_pose` and `panda_tcp_frame_jacobian_world` | `mb_frame_pose`, `mb_frame_jacobian` | the same call and the TCP's rotation (`xmat` times the TCP's fixed rotation) |
| `contact_fd`: Solo12, floating base, four point contacts | `solo_ct_contact_fd`, all four on | `mb_contact_fd` | copy q, v, τ (`qfrc_applied`) and the four feet's world points (`eq_data`); `mj_fwdPosition`, `mj_fwdVelocity`, `mj_fwdActuation`, `mj_fwdAcceleration`, `mj_fwdConstraint` (mj_forward without its sensor and energy calls; Newton solver, warm start) |

MuJoCo loads each URDF as the other benchmarks prepare it but with its own URDF default
`fusestatic="true"`: links on fixed joints merged into their parents as mbdc merges them (the TCP
into `panda_link7`, each foot into its lower leg), its fastest model of the robot (10 and 14
bodies with the world, 4 fewer each than the other tables' MuJoCo models); MuJoCo combines the
merged inertias itself. Solo12 gets four `connect` equalities (each lower leg's foot point to a
world point, set per state to where the foot is), inserted into the MJCF MuJoCo writes
(`mj_saveLastXML`) and reloaded; contacts, joint limits, friction loss, passive forces and
actuation disabled; the stiffest constraints MuJoCo allows (solimp 0.9999, solref 0.002 1).
Solo12's states have the feet at rest (v projected onto Jc v = 0), as a controller holding them
sees.
MuJoCo's constraints are soft (the constraint force is regularized by (1 − d)/d of an
approximate diagonal, d ≤ 0.9999) and leave out J̇c v, so its q̈ is not the exact KKT answer of
`contact_fd`: it agrees to the figure below (solimp 0.999 gives ten times as much), MuJoCo's
unconstrained q̈ of the same call to rounding.

Times are ns per call, median / minimum over all batches; ratios are median ÷ median of the same run.

EOF
  table
  echo
  echo "Agreement on the timed states (checked before timing; \`contact_fd_rest\`: the same q and τ at"
  echo "v = 0, where J̇c v vanishes; \`aba_smooth\`: MuJoCo's \`qacc_smooth\` against the generated \`aba\`):"
  echo
  agreement
  echo "<!-- /controller -->"
}

section >"$tmp/section.md"
cat "$tmp/section.md"
[ -n "$md" ] || exit 0
open="<!-- controller: bench/controller.sh -->"
close="<!-- /controller -->"
# shellcheck source=bench/md_section.sh
. "$(dirname "$0")/md_section.sh"
md_section_write "$md" "$tmp/section.md" "$open" "$close"
echo "== wrote $md (Controller functions)" >&2
