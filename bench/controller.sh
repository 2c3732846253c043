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
# shellcheck source=bench/driver.sh
. "$(dirname "$0")/driver.sh"
bench_start "usage: bash bench/controller.sh BUILD_DIR [BENCHMARKS_MD]" 1 2 "$@"
build=$1
md=${2:-}
calls=${MBDC_BENCH_CALLS:-128}
target=4
exe=$build/bench/bench_controller
[ -x "$exe" ] || bench_die 2 "no $exe (cmake --build $build --target bench_controller)"
bench_need valgrind
out=$build/bench/controller
mkdir -p "$out"
for f in time callgrind instr; do : >"$out/$f.txt"; done
bench_program "$exe" "$calls" "$out"

btype=$(bench_cache "$build" CMAKE_BUILD_TYPE)
cflags=$(bench_build_flags "$build" C)
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
  bench_machine "$build"
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
bench_section "$tmp/section.md" "$md"
