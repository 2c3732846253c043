#!/usr/bin/env bash
# Install what mbdc needs from Debian's packages; do nothing when everything is present.
set -euo pipefail
packages=(build-essential cmake pkg-config bison flex liblua5.4-dev libcmocka-dev clang
          libclang-rt-dev graphviz gnuplot-nox libxml2-dev libmujoco-dev libsimbody-dev valgrind time
          liblapack-dev python3-numpy python3-pytest python3-matplotlib python3-setuptools
          python3-pip)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
