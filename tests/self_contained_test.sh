#!/usr/bin/env bash
# The repository stands alone: no document, generated file, template or source refers to a path
# outside it (the design notes and papers the project was written from are not shipped: the docs
# cite the published papers by author, title and year), and every relative link of README.md and
# docs/ names a file of the repository; docs/README.md, the index, links every page of docs/.
# usage: self_contained_test.sh SOURCE_DIR
set -u
src=$(cd "$1" && pwd)
cd "$src" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# 1. no reference to the project's private notes or to a parent directory's files
pattern='\.\./shared|shared/(design|seeds|models)|ALGORITHMS\.md|DESIGN\.md|STYLE\.md|PERFORMANCE\.md|[Ss]eed 00[0-3]|seeds?/00[0-3]'
hits=$(grep -rEn "$pattern" README.md docs generated templates generator runtime grammar cmake \
  examples bench scripts tests --include='*' 2>/dev/null | grep -v '^tests/self_contained_test.sh:')
[ -z "$hits" ] || bad "references outside the repository:"$'\n'"$(echo "$hits" | head -20)"

# 2. every relative link of the Markdown documents resolves inside the repository
for md in README.md docs/*.md */README.md; do
  [ -f "$md" ] || continue
  dir=$(dirname "$md")
  # ](target) with target not a URL or an anchor of the same page
  while IFS= read -r target; do
    path=${target%%#*}
    [ -n "$path" ] || continue
    case $path in http://* | https://* | mailto:*) continue ;; esac
    full=$(realpath -m "$dir/$path")
    case $full in "$src"/*) ;; *) bad "$md links outside the repository: $target"; continue ;; esac
    [ -e "$full" ] || bad "$md links to a missing file: $target"
  done < <(grep -oE '\]\([^) ]+\)' "$md" | sed -E 's/^\]\(//; s/\)$//')
done

# 3. the index of the documentation lists every page
for md in docs/*.md; do
  page=$(basename "$md")
  [ "$page" = README.md ] && continue
  grep -q "](${page})" docs/README.md || bad "docs/README.md does not list docs/$page"
done

[ "$fail" -eq 0 ] && echo "self-contained: ok" || echo "self-contained: $fail failure(s)"
exit $((fail > 0))
