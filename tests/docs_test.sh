#!/usr/bin/env bash
# The documentation says what the code does, where the two can be compared mechanically:
#   - mbdc_add_model: the signature in docs/cmake.md and in cmake/mbdc.cmake's own header, and
#     the argument table of docs/cmake.md, name every keyword its cmake_parse_arguments accepts;
#   - an inertia that breaks the triangle inequality is a warning in both formats (the golden
#     tests 040 of tests/golden/ and 028 of tests/golden_urdf/): no sentence of docs/ calls it
#     an error.
# usage: docs_test.sh SOURCE_DIR
set -u
src=$(cd "$1" && pwd)
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# the keywords of mbdc_add_model: the three lists of its cmake_parse_arguments call (a list
# continued on the next line by a backslash joined first)
keywords=$(awk '/cmake_parse_arguments\(A / { on = 1 } on { print } on && /\$\{ARGN\}\)/ { exit }' \
             "$src/cmake/mbdc.cmake" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' |
             grep -o '"[A-Z_;]*"' | tr -d '"' | tr ';' '\n' | sort -u)
[ "$(echo "$keywords" | wc -w)" -ge 15 ] || bad "cannot read mbdc_add_model's keywords: $keywords"
# the signature: from 'mbdc_add_model(NAME' to the closing ')' (the fenced block in cmake.md, the
# comment in mbdc.cmake)
sig_md=$(awk '/^mbdc_add_model\(NAME <name>/ { on = 1 } on { print } on && /\)$/ { exit }' \
           "$src/docs/cmake.md")
sig_cmake=$(awk '/^#   mbdc_add_model\(NAME <name>/ { on = 1 } on { print } on && /\)$/ { exit }' \
              "$src/cmake/mbdc.cmake")
for k in $keywords; do
  word="(^|[^A-Z_])$k([^A-Z_]|$)"
  grep -qE "$word" <<<"$sig_md" ||
    bad "docs/cmake.md: the signature of mbdc_add_model leaves out $k"
  grep -qE "$word" <<<"$sig_cmake" ||
    bad "cmake/mbdc.cmake: the signature in its header leaves out $k"
  grep -q "^| \`$k\` |" "$src/docs/cmake.md" ||
    bad "docs/cmake.md: the table of mbdc_add_model has no row $k"
done

# clauses (paragraphs joined, cut at ". " and "; ") that name the triangle inequality and an error
while IFS= read -r hit; do
  [ -n "$hit" ] && bad "a document calls the triangle inequality an error: $hit"
done < <(cd "$src" && awk -v RS= '{
    gsub(/\n/, " "); n = split($0, s, /(\. |; )/)
    for (i = 1; i <= n; i++)
      if (s[i] ~ /triangle inequalit/ && s[i] ~ /(an|is) error/) print FILENAME ": " s[i]
  }' docs/*.md)

[ "$fail" -eq 0 ] && echo "docs: ok" || echo "docs: $fail failure(s)"
exit $((fail > 0))
