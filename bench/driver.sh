# shellcheck shell=bash
# driver.sh — the bench scripts' library, sourced by every one of them (peers.sh, icache.sh,
# frames.sh, derivatives.sh, parts.sh, controller.sh, loops.sh, flex.sh, callgrind.sh, ...):
#   - the start of a script: its arguments, the tools it needs, a temporary directory;
#   - a build directory: its programs' callgrind dumps (bench_harness.h), its CMakeCache;
#   - bench/peers_driver.c: generating a robot's code, building the driver, counting and timing it;
#   - the markdown sections the scripts write.
# Sets root (the source tree) when sourced, and tmp (a temporary directory, removed on exit) in
# bench_start. Functions that fail stop the script (bench_die) with the script's name.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_script=$(basename "$0")
bench_states=64 # peers_driver.c's NSTATES
# the issue's flags for generated code, and the driver's
bench_cflags_gen="-std=c99 -O3 -march=x86-64-v3 -ffp-contract=fast"
bench_cflags_drv="-std=c11 -O2"

# bench_die STATUS MESSAGE...: "SCRIPT: MESSAGE" on stderr, exit STATUS.
bench_die() {
  local status=$1
  shift
  echo "$bench_script: $*" >&2
  exit "$status"
}

# bench_start USAGE MIN MAX "$@": exits 2 with USAGE unless MIN to MAX arguments are given; then
# creates tmp.
bench_start() {
  local usage=$1 min=$2 max=$3
  shift 3
  if [ $# -lt "$min" ] || [ $# -gt "$max" ]; then
    echo "$usage" >&2
    exit 2
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
}

# bench_mbdc_start USAGE "$@": bench_start for a script of arguments MBDC [MARKDOWN]; sets mbdc
# (checked to be an executable) and md (empty without MARKDOWN).
bench_mbdc_start() {
  bench_start "$1" 2 3 "$@"
  mbdc=$2
  md=${3:-}
  bench_need_exe "$mbdc" "$1"
}

# bench_need TOOL...: exits 2 unless every TOOL is installed (a command, or an executable path).
bench_need() {
  local t
  for t in "$@"; do
    command -v "$t" >/dev/null || bench_die 2 "$t is not installed"
  done
}

# bench_need_exe FILE HINT: exits 2 unless FILE is an executable.
bench_need_exe() {
  [ -x "$1" ] || bench_die 2 "$1 is not an executable ($2)"
}

# ------------------------------------------------------------------------------------------------
# A build directory (BUILD_DIR of controller.sh, loops.sh, flex.sh, callgrind.sh).

# bench_cache BUILD VAR: VAR's value in BUILD/CMakeCache.txt.
bench_cache() {
  sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt"
}

# bench_build_flags BUILD LANG: CMAKE_<LANG>_FLAGS of BUILD's build type.
bench_build_flags() {
  local btype
  btype=$(bench_cache "$1" CMAKE_BUILD_TYPE | tr '[:lower:]' '[:upper:]')
  bench_cache "$1" "CMAKE_$2_FLAGS_$btype"
}

# bench_machine BUILD: the first rows of a section's table of how it was measured: the CPU, and
# BUILD's C compiler.
bench_machine() {
  local model
  model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | awk 'NR == 1')
  echo "| | |"
  echo "|---|---|"
  echo "| CPU | $model, $(nproc) cores ($(uname -sr)) |"
  echo "| compiler | $("$(bench_cache "$1" CMAKE_C_COMPILER)" --version | awk 'NR == 1') |"
}

# bench_program EXE CALLS OUT: EXE timed (with the words of MBDC_BENCH_ARGS), its output appended
# to OUT/time.txt; then EXE under callgrind (bench_callgrind_dumps; its output appended to
# OUT/callgrind.txt), its "instr" lines appended to OUT/instr.txt.
bench_program() {
  local exe=$1 calls=$2 out=$3 name
  name=$(basename "$exe")
  echo "== $name: timing" >&2
  # shellcheck disable=SC2086 # the arguments are words
  "$exe" ${MBDC_BENCH_ARGS:-} >>"$out/time.txt"
  echo "== $name: callgrind ($calls calls per dump)" >&2
  bench_callgrind_dumps "$tmp/program.log" "$calls" "$exe" >>"$out/instr.txt"
  cat "$tmp/program.log" >>"$out/callgrind.txt"
}

# bench_callgrind_dumps LOG CALLS EXE [PREFIX]: EXE --callgrind CALLS under callgrind (its output
# in LOG): for every dump, "instr [PREFIX ]NAME INSTRUCTIONS_PER_CALL", NAME the dump's ("FUNC
# IMPL" or "MODEL FUNC IMPL": bench_harness.h).
bench_callgrind_dumps() {
  local log=$1 calls=$2 exe=$3 prefix=${4:+$4 } cg k
  cg=$(mktemp -d "$tmp/cg.XXXXXX")
  if ! valgrind --tool=callgrind --callgrind-out-file="$cg/out" "$exe" --callgrind "$calls" \
    >"$log" 2>"$cg/err"; then
    cat "$log" "$cg/err" >&2
    bench_die 1 "$exe failed under callgrind"
  fi
  for ((k = 1; ; k++)); do
    [ -f "$cg/out.$k" ] || break
    awk -v calls="$calls" -v prefix="$prefix" '
      /^desc: Trigger: Client Request: / { sub(/^desc: Trigger: Client Request: /, ""); name = $0 }
      /^summary:/ { instr = $2 }
      END { if (name != "") printf "instr %s%s %.0f\n", prefix, name, instr / calls }' "$cg/out.$k"
  done
  rm -rf "$cg"
}

# ------------------------------------------------------------------------------------------------
# bench/peers_driver.c on a robot's generated code (needs mbdc set to the mbdc executable).

# bench_generate DIR MODEL FLAGS MBDC_ARG...: mbdc generate MODEL into DIR with the MBDC_ARGs and
# FLAGS (one word, "-" for none); prints the code's prefix.
bench_generate() {
  local dir=$1 model=$2 flags=$3
  shift 3
  [ "$flags" = "-" ] || set -- "$@" "$flags"
  mkdir -p "$dir"
  # shellcheck disable=SC2154 # mbdc: the sourcing script's
  "$mbdc" generate "$model" -q -o "$dir" "$@" >&2
  bench_prefix "$dir"
}

# bench_prefix DIR: the prefix of the one <p>_dynamics.h in DIR.
bench_prefix() {
  local hdr
  hdr=$(cd "$1" && ls -- *_dynamics.h)
  [ "$(echo "$hdr" | wc -l)" = 1 ] || bench_die 1 "not one *_dynamics.h in $1"
  echo "${hdr%_dynamics.h}"
}

# bench_driver GEN EXE [GCC_ARG...]: bench/peers_driver.c for the code generated in GEN, built
# into EXE: GEN's <p>_dynamics.c compiled at bench_cflags_gen into dyn.o beside EXE (once: the
# counter and the timer of a robot share it), the driver at bench_cflags_drv with -DHEADER, -DPFX,
# -DPFX_UP and the GCC_ARGs (-DTIMING, -DWITH_..., objects and libraries to link), with
# bench/bench_harness.c (the timer's clock).
bench_driver() {
  local gen=$1 exe=$2 p pu obj
  shift 2
  p=$(bench_prefix "$gen")
  pu=$(echo "$p" | tr '[:lower:]' '[:upper:]')
  obj=$(dirname "$exe")/dyn.o
  # shellcheck disable=SC2086 # the flags are words
  [ -f "$obj" ] || gcc $bench_cflags_gen -c "$gen/${p}_dynamics.c" -o "$obj"
  # shellcheck disable=SC2086
  gcc $bench_cflags_drv -DHEADER="\"$gen/${p}_dynamics.h\"" -DPFX="$p" -DPFX_UP="$pu" \
    "$root/bench/peers_driver.c" "$root/bench/bench_harness.c" "$obj" "$@" -lm -o "$exe"
}

# bench_callgrind_driver DIR [VALGRIND_ARG...]: DIR/driver under callgrind (its output in
# DIR/driver.txt), annotated with inclusive counts into DIR/annotate.txt: instructions, and L1
# instruction-cache misses with --cache-sim=yes.
bench_callgrind_driver() {
  local d=$1 show=Ir
  shift
  case " $* " in *" --cache-sim=yes "*) show=Ir,I1mr ;; esac
  if ! valgrind --tool=callgrind "$@" --callgrind-out-file="$d/cg.out" "$d/driver" \
    >"$d/driver.txt" 2>"$d/cg.err"; then
    cat "$d/driver.txt" "$d/cg.err" >&2
    bench_die 1 "$d/driver failed under callgrind"
  fi
  callgrind_annotate --inclusive=yes --show="$show" --threshold=100 "$d/cg.out" >"$d/annotate.txt"
}

# bench_per_call DIR FUNC: run_FUNC's inclusive counts in DIR/annotate.txt per call (÷
# bench_states): instructions to a whole number, misses to a tenth.
bench_per_call() {
  local n
  n=$(bench_inclusive "$1/annotate.txt" "run_$2")
  [ -n "$n" ] || bench_die 1 "no inclusive count of run_$2 in callgrind_annotate's output" \
    "($1/annotate.txt)"
  awk -v s="$bench_states" '
    { printf "%.0f", $1 / s; for (i = 2; i <= NF; i++) printf " %.1f", $i / s; print "" }' <<<"$n"
}

# bench_inclusive ANNOTATE FUNC: the inclusive counts of FUNC in callgrind_annotate's output
# ANNOTATE (run with --inclusive=yes), every event column in the order of --show, without
# thousands separators ("." is 0), from its largest line; nothing when FUNC is not there. A line is
# "56,446 (14.85%)  12 ( 0.5%)  FILE:run_rnea [OBJECT]": a percentage may hold a space, FILE is ???
# without debug information, and the name is the word before "[OBJECT]" (the last word when there
# is none), after its last ':'.
bench_inclusive() {
  awk -v fn="$2" '
    {
      line = $0; gsub(/\( *[0-9.]+%\)/, " ", line); k = split(line, w, " ")
      if (w[k] ~ /\]$/) { while (k > 1 && w[k] !~ /^\[/) k--; k-- }
      name = w[k]; sub(/.*:/, "", name)
      if (k < 2 || name != fn) next
      c = ""
      for (i = 1; i < k; i++) {
        x = w[i]; gsub(/,/, "", x); if (x == ".") x = 0
        if (x !~ /^[0-9]+$/) next
        c = c (i > 1 ? " " : "") x
      }
      x = w[1]; gsub(/,/, "", x)
      if (x + 0 > best) { best = x + 0; out = c }
    }
    END { if (out != "") print out }' "$1"
}

# bench_best_times ROUNDS DIR ROBOT...: runs DIR/ROBOT/timer of every ROBOT in each of ROUNDS
# rounds, robot after robot (a slow spell of a shared machine then falls on all of them), in each
# round once pinned to each processor (taskset, when there is one: the two processors of the
# virtual machine these figures come from run the same code up to 1.45 times apart); prints
# "time ROBOT FUNC NS" with each function's best, from the timers' "time FUNC NS" lines.
bench_best_times() {
  local rounds=$1 dir=$2 k c p robot all
  shift 2
  local pins=("")
  if command -v taskset >/dev/null; then
    pins=()
    for ((c = 0; c < $(nproc); c++)); do pins+=("taskset -c $c"); done
  fi
  all=$(mktemp)
  for ((k = 1; k <= rounds; k++)); do
    echo "== timing: round $k of $rounds, ${#pins[@]} processor(s)" >&2
    for robot in "$@"; do
      for p in "${pins[@]}"; do
        # shellcheck disable=SC2086 # the pinning command is words
        $p "$dir/$robot/timer" | awk -v r="$robot" '$1 == "time" { print r, $2, $3 }' >>"$all"
      done
    done
  done
  awk '!(($1, $2) in t) || $3 < t[$1, $2] { t[$1, $2] = $3 }
       END { for (x in t) { split(x, rf, SUBSEP); print "time", rf[1], rf[2], t[x] } }' "$all" | sort
  rm -f "$all"
}

# bench_derivative_robots DIR: the robots of the derivative benches (bench/derivatives.sh,
# bench/derivatives_cost.sh), a line each "NAME MODEL FLAGS" (FLAGS "-" for none): the Panda with
# its two prismatic finger joints made fixed (bench_panda_fixed), Solo12 and romeo_small with
# floating bases.
bench_derivative_robots() {
  printf '%s\n' "panda $(bench_panda_fixed "$1") -" \
    "solo12 $root/examples/urdf/solo12.urdf --floating-base" \
    "romeo_small $root/examples/urdf/romeo_small.urdf --floating-base"
}

# bench_panda_fixed DIR: writes DIR/panda.urdf, the Panda with its two prismatic finger joints
# made fixed (the arm's 7 joints, as the peers' reference models), and prints its path.
bench_panda_fixed() {
  sed 's/type="prismatic"/type="fixed"/' "$root/examples/urdf/panda.urdf" >"$1/panda.urdf"
  echo "$1/panda.urdf"
}

# ------------------------------------------------------------------------------------------------
# Markdown sections.

# bench_md_write MD SECTION [existing]: the lines of file SECTION (which begins with the line OPEN
# and ends with CLOSE, its markers) replace the text from OPEN to CLOSE in MD, or are appended to
# MD after a blank line when MD lacks OPEN (MD is created when missing); with "existing", MD must
# have the section: else a message, and status 1. MD is rewritten in one copy at the end.
bench_md_write() {
  local md=$1 sec=$2 open close out
  open=$(head -n 1 "$sec")
  close=$(tail -n 1 "$sec")
  if [ "${3:-}" = existing ] && ! { [ -f "$md" ] && grep -qxF "$open" "$md"; }; then
    echo "$bench_script: $md has no line $open: not written" >&2
    return 1
  fi
  out=$(mktemp)
  if [ -f "$md" ] && grep -qxF "$open" "$md"; then
    awk -v sec="$sec" -v o="$open" -v c="$close" '
      $0 == o { while ((getline l < sec) > 0) print l; skip = 1; next }
      $0 == c { skip = 0; next }
      !skip' "$md" >"$out"
  else
    { [ -f "$md" ] && cat "$md" && echo; cat "$sec"; } >"$out"
  fi
  cp "$out" "$md"
  rm -f "$out"
  echo "== wrote $md ($open)" >&2
}

# bench_section SECTION [MD]: prints the section, and writes it into MD when given (bench_md_write).
bench_section() {
  cat "$1"
  [ -z "${2:-}" ] || bench_md_write "$2" "$1"
}
