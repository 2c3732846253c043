#!/usr/bin/env bash
# A Markdown page run as a literate script: every command and every file it shows works as
# written (docs/testing.md, "The pages' commands").
#   usage: docs_run.sh MBDC SOURCE_DIR PAGE.md [--full]
# In a fresh scratch directory that looks like a checkout after the README's build (symlinks to
# SOURCE_DIR's top-level entries but build*, out and dot files; build/generator/mbdc the MBDC under
# test, first on PATH; build/runtime/libmbrt.a compiled here from runtime/*.c with plain
# `cc -std=c99 -O1`, since MBDC's own build may be a sanitizer build) the page's fenced blocks are
# taken in order:
#   a block whose first line names a file, in any language (`/* file: NAME */`, `// file: NAME`,
#     `# file: NAME`, `-- file: NAME`, `<!-- file: NAME -->`), is written to NAME, relative to the
#     scratch directory (never through a symlink into the sources);
#   ```sh is run with `bash -euo pipefail`, as in one terminal: the first block starts in the
#     scratch directory, later ones where the one before left off, with the variables it exported;
#   ```text and ```console are output shown to the reader: not run;
#   any other block is an error of the page (give it a file line or make it text).
# Special lines, only in SOURCE_DIR/README.md's first block: `bash scripts/test.sh` is never run
# (it is this test suite) and `bash scripts/demo.sh` only with --full, in a copy of the sources
# (it builds into the tree); elsewhere either line is an error of the page.
# docs/getting-started.md's files must be byte-identical to examples/getting_started/ (each file
# there but README.md is one of the page's).
# Prints one line per block and `N blocks run, M files written, K shown`; exit 1 on any failure.
# MBDC_KEEP_TMP=1 keeps the scratch directory; MBDC_DOCS_VERBOSE=1 shows every block's output.
set -u
if [ $# -lt 3 ] || [ $# -gt 4 ] || { [ $# -eq 4 ] && [ "$4" != --full ]; }; then
  echo "usage: docs_run.sh MBDC SOURCE_DIR PAGE.md [--full]" >&2
  exit 2
fi
full=0
[ $# -eq 4 ] && full=1
mbdc=$(realpath -e "$1") && src=$(realpath -e "$2") && page=$(realpath -e "$3") || exit 2
[ -x "$mbdc" ] || { echo "FAIL: $1 is not an executable" >&2; exit 2; }
where=${page#"$src"/} # the page as messages name it: relative to the sources when inside
tmp=$(mktemp -d)
trap '[ -n "${MBDC_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
work=$tmp/work # the scratch checkout; $tmp/blocks holds the page's blocks, $tmp/state the shell's
mkdir -p "$work/build/generator" "$work/build/runtime" "$tmp/blocks" "$tmp/state"
work=$(realpath "$work")

# --- the page's fenced blocks: $tmp/blocks/N (the body, the fence's indentation removed) and a
# manifest line per block: N, the line of its opening fence, its language (the info string's
# first word, "-" for none); "unclosed LINE" for a fence never closed
awk -v dir="$tmp/blocks" '
  function manifest(s) { print s > (dir "/manifest") }
  !inb && match($0, /^ *(```+|~~~+)/) {
    m = substr($0, 1, RLENGTH); ind = m; sub(/[`~]+$/, "", ind)
    fence = substr(m, length(ind) + 1); info = substr($0, RLENGTH + 1)
    if (substr(fence, 1, 1) == "`" && index(info, "`")) next # inline code, not a fence
    gsub(/^[ \t]+|[ \t]+$/, "", info); lang = info; sub(/[ \t{].*$/, "", lang)
    if (lang == "") lang = "-"
    n++; start = NR; inb = 1; indent = length(ind); fch = substr(fence, 1, 1); flen = length(fence)
    body = dir "/" n; printf "" > body
    next
  }
  inb {
    line = $0; t = line; sub(/^ */, "", t)
    if (substr(t, 1, 1) == fch) {
      f = t; sub("^\\" fch "+", "", f); run = length(t) - length(f)
      if (run >= flen && f ~ /^[ \t]*$/) {
        close(body); manifest(n "\t" start "\t" lang); inb = 0; next
      }
    }
    for (k = 0; k < indent && substr(line, 1, 1) == " "; k++) line = substr(line, 2)
    print line > body
  }
  END { if (inb) manifest("unclosed\t" start); else if (!n) printf "" > (dir "/manifest") }
' "$page"

# --- the scratch checkout
for e in "$src"/*; do
  name=$(basename "$e")
  case $name in build* | out) continue ;; esac
  ln -s "$e" "$work/$name"
done
ln -s "$mbdc" "$work/build/generator/mbdc"
export PATH="$work/build/generator:$PATH"

# --- what each block is, before anything runs: every error of the page at once
errors=0
page_error() { echo "FAIL: $*"; errors=$((errors + 1)); }
is_readme=0
[ "$page" = "$src/README.md" ] && is_readme=1
mirror="" # the directory of the sources the page's files must equal
[ "$page" = "$src/docs/getting-started.md" ] && mirror=examples/getting_started
# file_name LINE: the file a block's first line names, or nothing
file_name() {
  local re
  for re in '^/\* file: ([^ ]+) \*/$' '^// file: ([^ ]+)$' '^# file: ([^ ]+)$' \
    '^-- file: ([^ ]+)$' '^<!-- file: ([^ ]+) -->$'; do
    [[ $1 =~ $re ]] && { echo "${BASH_REMATCH[1]}"; return; }
  done
}
# special LINE: the command of a line without its comment, if it is one of the two special ones
special() {
  local c=${1%%#*}
  c=$(echo "$c" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
  case $c in "bash scripts/test.sh" | "bash scripts/demo.sh") echo "$c" ;; esac
}
kinds=() lines=() langs=() names=()
declare -A written_from=() # file of the mirror -> the line of the block that writes it
while IFS=$'\t' read -r n line lang; do
  if [ "$n" = unclosed ]; then
    page_error "$where:$line: a fence that is never closed"
    continue
  fi
  first=$(head -n 1 "$tmp/blocks/$n")
  name=$(file_name "$first")
  kind=""
  if [ -n "$name" ]; then
    kind="file"
    resolved=$(realpath -m "$work/$name")
    if [[ $name = /* || /$name/ = */../* ]]; then
      page_error "$where:$line: '$name' is not a relative path without '..'"
    elif [[ $resolved != "$work"/* ]]; then
      page_error "$where:$line: '$name' would be written into the sources (through a symlink)"
    elif [ -n "$mirror" ]; then
      base=$(basename "$name")
      if [ ! -f "$src/$mirror/$base" ]; then
        page_error "$where:$line: $name has no copy $mirror/$base"
      elif ! cmp -s "$tmp/blocks/$n" "$src/$mirror/$base"; then
        page_error "$where:$line: $name differs from $mirror/$base:"
        diff -u "$src/$mirror/$base" "$tmp/blocks/$n" | sed -n '3,22p' | sed 's/^/  | /'
      fi
      written_from[$base]=$line
    fi
  elif [[ $first =~ ^(/\*|//|#|--|\<!--)[[:space:]]*file: ]]; then
    page_error "$where:$line: a malformed file line: '$first' (e.g. '# file: dir/name.txt')"
  elif [ "$lang" = sh ]; then
    kind=run
  elif [ "$lang" = text ] || [ "$lang" = console ]; then
    kind=shown
  else
    [ "$lang" = - ] && lang="no language"
    page_error "block at $where:$line is neither run nor written: give it a file line or make" \
      "it text ($lang; the blocks run are \`\`\`sh)"
  fi
  if [ "$kind" = run ]; then
    ln=0
    while IFS= read -r l || [ -n "$l" ]; do
      ln=$((ln + 1))
      s=$(special "$l")
      if [ -n "$s" ] && ! { [ "$is_readme" = 1 ] && [ ${#kinds[@]} -eq 0 ]; }; then
        page_error "$where:$((line + ln)): '$s' is special only in README.md's first block" \
          "(elsewhere show it as text)"
      fi
    done <"$tmp/blocks/$n"
  fi
  kinds+=("$kind") lines+=("$line") langs+=("$lang") names+=("$name")
done <"$tmp/blocks/manifest"
if [ -n "$mirror" ]; then
  for f in "$src/$mirror"/*; do
    base=$(basename "$f")
    [ "$base" = README.md ] || [ -n "${written_from[$base]:-}" ] ||
      page_error "$mirror/$base is not one of $where's files (show it, with its file line)"
  done
fi
if [ "$errors" -gt 0 ]; then
  echo "FAIL: $where: $errors error(s) of the page; nothing was run"
  exit 1
fi

# --- the runtime, as the README's build leaves it, compiled without the test build's flags
for c in "$src"/runtime/*.c; do
  if ! cc -std=c99 -O1 -c "$c" -o "$tmp/$(basename "$c" .c).o" 2>"$tmp/cc.log"; then
    echo "FAIL: cc -std=c99 -O1 -c $c"
    sed 's/^/  | /' "$tmp/cc.log" | tail -20
    exit 1
  fi
done
ar rcs "$work/build/runtime/libmbrt.a" "$tmp"/*.o

# copy_sources DIR: the sources as a checkout has them (git's files, else all but build*/, out/)
copy_sources() {
  local dir=$1 f
  mkdir -p "$dir"
  if git -C "$src" ls-files -z --cached --others --exclude-standard >"$tmp/files" 2>/dev/null &&
    [ -s "$tmp/files" ]; then
    # (less the files deleted and not yet committed)
    while IFS= read -r -d '' f; do
      [ -e "$src/$f" ] && printf '%s\0' "$f"
    done <"$tmp/files" | tar -C "$src" --null -T - -cf - | tar -C "$dir" -xf - || return 1
    echo "    (the copy: the files git lists)"
  else
    for f in "$src"/* "$src"/.[!.]*; do
      [ -e "$f" ] || continue
      case $(basename "$f") in build* | out | .git) continue ;; esac
      cp -r "$f" "$dir/" || return 1
    done
    echo "    (the copy: cp -r of the sources but build*/, out/, .git)"
  fi
}

# --- run
echo "$where: running in $work"
echo "$work" >"$tmp/state/cwd"
: >"$tmp/state/env"
# restore.sh: what one terminal keeps from one command to the next, its directory and exports
st=$tmp/state
cat >"$st/restore.sh" <<END
source '$st/env'
cd "\$(cat '$st/cwd')"
_docs_run_save() {
  export -p | grep -vE '^declare -x (PWD|OLDPWD|SHLVL|_|SHELLOPTS|BASHOPTS|BASH_[A-Z_]*)=' \\
    >'$st/env' || true
  pwd >'$st/cwd'
}
trap _docs_run_save EXIT
END
nrun=0 nfile=0 nshown=0 skipped=()
for i in "${!kinds[@]}"; do
  n=$((i + 1)) line=${lines[$i]} lang=${langs[$i]}
  case ${kinds[$i]} in
    shown)
      nshown=$((nshown + 1))
      printf '  %s:%-5s %-8s shown\n' "$where" "$line" "$lang"
      ;;
    file)
      name=${names[$i]}
      # (again: a block run since may have made a symlink on the way)
      if [[ $(realpath -m "$work/$name") != "$work"/* ]]; then
        echo "FAIL: $where:$line: '$name' would be written into the sources (through a symlink)"
        exit 1
      fi
      mkdir -p "$(dirname "$work/$name")"
      cp "$tmp/blocks/$n" "$work/$name"
      nfile=$((nfile + 1))
      same=""
      [ -n "$mirror" ] && same=" (= $mirror/$(basename "$name"))"
      printf '  %s:%-5s %-8s written: %s%s\n' "$where" "$line" "$lang" "$name" "$same"
      ;;
    run)
      # the block as a script: the shell's state restored on line 1, the block from line 2 on
      script=$tmp/state/block$n.sh
      nskip=0
      {
        echo "source '$tmp/state/restore.sh'"
        ln=0
        while IFS= read -r l || [ -n "$l" ]; do
          ln=$((ln + 1))
          s=$(special "$l")
          if [ "$s" = "bash scripts/test.sh" ]; then
            skipped+=("$where:$((line + ln)): '$s' not run: it is this test suite (CI runs it)")
            echo ": skipped" && nskip=$((nskip + 1))
          elif [ "$s" = "bash scripts/demo.sh" ] && [ "$full" = 0 ]; then
            why="it builds into the sources (--full runs it in a copy)"
            skipped+=("$where:$((line + ln)): '$s' not run: $why")
            echo ": skipped" && nskip=$((nskip + 1))
          elif [ "$s" = "bash scripts/demo.sh" ]; then
            echo "  $where:$((line + ln)): '$s' runs in a copy of the sources: $tmp/copy" >&2
            copy_sources "$tmp/copy" >&2 || { echo "FAIL: cannot copy the sources"; exit 1; }
            printf '( cd %q\n%s\n)\n' "$tmp/copy" "$l" # the line as written, in the copy
          else
            printf '%s\n' "$l"
          fi
        done <"$tmp/blocks/$n"
      } >"$script"
      start=$EPOCHREALTIME
      if bash -euo pipefail "$script" </dev/null >"$tmp/out" 2>&1; then
        nrun=$((nrun + 1))
        took=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f s", b - a }')
        [ "$nskip" = 0 ] || took="$took; $nskip line(s) skipped, see below"
        printf '  %s:%-5s %-8s run (%s)\n' "$where" "$line" "$lang" "$took"
        [ -z "${MBDC_DOCS_VERBOSE:-}" ] || sed 's/^/  | /' "$tmp/out"
      else
        rc=$?
        echo "FAIL: the block at $where:$line exited with $rc. The block:"
        awk -v l="$line" '{ printf "  %5d | %s\n", l + NR, $0 }' "$tmp/blocks/$n"
        echo "its output (the last 40 lines):"
        tail -n 40 "$tmp/out" | sed 's/^/  | /'
        exit 1
      fi
      ;;
  esac
done
for s in "${skipped[@]+"${skipped[@]}"}"; do echo "skipped: $s"; done
echo "$nrun blocks run, $nfile files written, $nshown shown"
