#!/bin/bash
# Here, on the Debian 12 development machine: fetches the Debian packages
# bench/gpu_check.sh builds and runs with on a GPU machine that reaches no
# registry, into .gpu/debs (git-ignored), to be carried there with the tree:
#   bash bench/gpu_check_prepare.sh     (here: apt-get download, nothing installed)
#   bash bench/gpu_check.sh             (there, .gpu/ carried beside the tree)
# About 10 MB of .deb files: Open MPI 4.1.4 with its runtime libraries (the
# list of bench/portable_mpi.sh), and the -dev packages scripts/deps.sh
# installs for a build: fmt, CLI11, ALGLIB, toml++, fccp, nlohmann-json and
# BLAS (CMakeLists.txt requires every one, whatever the targets). The GPU
# machine brings nvcc, CMake, g++ and python3 (an H200 image had CUDA 13.0).
# Files already in DEBS are kept; delete the folder to fetch them again.
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
set -euo pipefail
cd "$(dirname "$0")/.."
DEBS=${DEBS:-.gpu/debs}  # where the .deb files go (bench/gpu_check.sh reads .gpu/debs)
packages=(openmpi-bin libopenmpi3 openmpi-common libopenmpi-dev libfmt9 libfmt-dev libcli11-dev
          libalglib3.19 libalglib-dev libtomlplusplus3 libtomlplusplus-dev libfccp-dev
          nlohmann-json3-dev libblas3 libblas-dev libevent-core-2.1-7 libevent-pthreads-2.1-7
          libfabric1 libhwloc15 libibverbs1 libnl-3-200 libnl-route-3-200 libnuma1 libpmix2
          libpsm-infinipath1 libpsm2-2 librdmacm1 libucx0 libmunge2 libpciaccess0 libudev1)
die() { echo "error: $*" >&2; exit 2; }
command -v apt-get >/dev/null || die "no apt-get here: run this on the Debian 12 development machine"
# The folder must be one git ignores: .gpu/ is (.gitignore).
if [ -d .git ] && ! git check-ignore -q "$DEBS/x.deb"; then
  die "$DEBS is not ignored by git: use a folder under .gpu/ (.gitignore has /.gpu/)"
fi
# bench/portable_mpi.sh's packages, every one carried too.
for p in $(sed -n '/^packages=(/,/)/p' bench/portable_mpi.sh | tr -d '()' | sed 's/packages=//'); do
  [[ " ${packages[*]} " == *" $p "* ]] || die "bench/portable_mpi.sh names $p, which this list lacks: add it"
done
mkdir -p "$DEBS"
missing=()
for p in "${packages[@]}"; do
  ls "$DEBS/${p}_"*.deb >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  (cd "$DEBS" && apt-get download "${missing[@]}" 2>&1 | grep -v "^W: Download is performed unsandboxed" || true)
fi
for p in "${packages[@]}"; do
  ls "$DEBS/${p}_"*.deb >/dev/null 2>&1 || die "apt-get download $p failed (apt-get update first?)"
done
echo "$(ls "$DEBS"/*.deb | wc -l) packages, $(du -sh "$DEBS" | cut -f1) in $DEBS; carry it with the tree, then there: bash bench/gpu_check.sh"
