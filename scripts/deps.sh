#!/bin/bash
# Installs what commlab needs from Debian's packages, once; safe to run again.
#   make deps                  (or: bash scripts/deps.sh, as root; otherwise it
#                              names the missing packages and exits 1)
source "$(dirname "$0")/../bench/args.sh" && script_args "$0" "$@"
set -euo pipefail
PKGS="cmake g++ make ninja-build openmpi-bin libopenmpi-dev mpich libmpich-dev catch2 libfccp-dev libcli11-dev libfmt-dev libtomlplusplus-dev nlohmann-json3-dev libalglib-dev libblas-dev
      python3 python3-matplotlib clang libclang-rt-dev clang-format"
missing=()
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "error: missing Debian packages: ${missing[*]} (run as root, or apt-get install them)" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
