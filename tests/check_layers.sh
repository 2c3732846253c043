#!/usr/bin/env bash
# The generator's folders are the stages of its pipeline (generator/README.md). A file may include
# headers of its own folder and of the folders its stage lists below — never of a later stage —
# so no include can close a circle between folders. Includes name their folder ("model/model.h");
# a bare name must be one of the few headers from outside generator/ listed here.
# Usage: check_layers.sh GENERATOR_DIR   (exit 1 and one line per offending include)
set -euo pipefail
dir=${1:?usage: check_layers.sh GENERATOR_DIR}

declare -A may=(
  [base]=""
  [model]="base"
  [modal]="base model"
  [urdf]="base model"
  [mjcf]="base model urdf"
  [load]="base model urdf mjcf"
  [topology]="base model modal"
  [sym]="base"
  [lua]="base sym"
  [emit]="base model modal load topology sym lua"
  [cli]="base model modal urdf mjcf load topology sym lua emit"
)
# Headers from outside generator/: the parser's AST (grammar/) and the runtime's model (runtime/;
# model/ reads its joint-type table, mb.h MB_JOINT_TYPES, the one list of the joint types);
# topology/ also reads the runtime's plan of recursive coordinate reduction (rcr_internal.h), so
# the generated p_rcr and the runtime's mb_rcr follow one plan.
declare -A outside=(
  [model]="ast.h mb.h"
  [load]="ast.h"
  [topology]="mb.h rcr_internal.h"
  [emit]="mb.h"
  [cli]="mb.h"
)

status=0
for path in "$dir"/*/; do
  folder=$(basename "$path")
  if [[ ! -v may[$folder] ]]; then
    echo "$path: a folder no stage owns (add it to tests/check_layers.sh and generator/README.md)"
    status=1
    continue
  fi
  [ -f "$path/README.md" ] || { echo "$path: no README.md"; status=1; }
  for f in "$path"*.[ch]; do
    [ -e "$f" ] || continue
    while IFS= read -r line; do
      n=${line%%:*}
      inc=${line#*:}
      inc=${inc#*\"}
      inc=${inc%%\"*}
      if [[ $inc == */* ]]; then
        to=${inc%%/*}
        if [[ $to != "$folder" && " ${may[$folder]} " != *" $to "* ]]; then
          echo "$f:$n: $folder/ may not include $inc (allowed: $folder ${may[$folder]})"
          status=1
        elif [ ! -f "$dir/$inc" ]; then
          echo "$f:$n: $inc does not exist"
          status=1
        fi
      elif [[ " ${outside[$folder]:-} " != *" $inc "* ]]; then
        echo "$f:$n: \"$inc\" must name its folder (\"$folder/$inc\"), or be an allowed outside header"
        status=1
      fi
    done < <(grep -n '^#include "' "$f" || true)
  done
done
loose=$(find "$dir" -maxdepth 1 -name '*.[ch]' | sort)
if [ -n "$loose" ]; then
  echo "files outside every stage's folder:"
  echo "$loose"
  status=1
fi
exit $status
