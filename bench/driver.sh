# shellcheck shell=bash
# driver.sh — sourced by the bench scripts (peers.sh, icache.sh, derivatives.sh, ...): counting and
# timing the programs they build from bench/peers_driver.c, and the robots they share.
#
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

# bench_derivative_robots ROOT DIR: the robots of the derivative benches (bench/derivatives.sh,
# bench/derivatives_cost.sh), a line each "NAME MODEL FLAGS" (FLAGS "-" for none): the Panda with
# its two prismatic finger joints made fixed (as bench/peers.sh; written to DIR/panda.urdf),
# Solo12 and romeo_small with floating bases.
bench_derivative_robots() {
  sed 's/type="prismatic"/type="fixed"/' "$1/examples/urdf/panda.urdf" >"$2/panda.urdf"
  printf '%s\n' "panda $2/panda.urdf -" "solo12 $1/examples/urdf/solo12.urdf --floating-base" \
    "romeo_small $1/examples/urdf/romeo_small.urdf --floating-base"
}
