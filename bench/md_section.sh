# md_section.sh — sourced by the bench scripts that write one section of docs/benchmarks.md.
#
# md_section_write MD SECTION OPEN CLOSE: the lines of file SECTION (which begins with the line
# OPEN and ends with CLOSE) replace the text from OPEN to CLOSE in MD, or are appended to MD after
# a blank line when MD lacks OPEN (MD is created when missing). Uses mktemp; MD is rewritten in
# one copy at the end.
md_section_write() {
  local md=$1 sec=$2 open=$3 close=$4 out
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
}
