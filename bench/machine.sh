#!/bin/bash
# Describes the machine a result was measured on, as Markdown, for results/*/machine.md.
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
echo "# Machine"
echo
echo "- host: $(hostname)"
echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "- cpu: ${cpu:-unknown}, $(nproc) cores"
echo "- memory: $(free -g | awk '/^Mem:/ {print $2}') GiB"
echo "- os: $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
echo "- tcp: congestion control $(sysctl -n net.ipv4.tcp_congestion_control 2>/dev/null || echo unknown)"
echo "- mpi: $(mpirun --version 2>/dev/null | head -1)"
echo "- compiler: $(c++ --version | head -1)"
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "- gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
else
  echo "- gpu: none"
fi
if command -v nvcc >/dev/null; then
  echo "- cuda: $(nvcc --version | grep -o 'release [0-9.]*' | head -1)"
else
  echo "- cuda: none"
fi
nccl=$(ls /usr/local/cuda/include/nccl.h /usr/include/nccl.h 2>/dev/null | head -1)
if [ -n "$nccl" ]; then
  echo "- nccl: $(awk '/define NCCL_(MAJOR|MINOR|PATCH) / {printf "%s%s", sep, $3; sep="."}' "$nccl") (headers; used with -d cuda)"
else
  echo "- nccl: none"
fi
# The code's version: COMMLAB_VERSION when the runner says it; else the one
# the programs were built from (BIN/version.txt, written when cmake
# configures: right also for a build carried to a GPU box whose copy of the
# tree has another history); else git's, where a tree whose only changes are
# results (a sweep that just wrote them) is not "dirty" code.
if [ -n "${COMMLAB_VERSION:-}" ]; then
  version=$COMMLAB_VERSION
elif [ -s "${BIN:-build/bin}/version.txt" ]; then
  version=$(cat "${BIN:-build/bin}/version.txt")
else
  version=$(git describe --always 2>/dev/null || echo unknown)
  git diff --quiet HEAD -- . ':!results' 2>/dev/null || version="$version-dirty"
fi
echo "- commlab: $version"
# Settings of the MPI in the environment (OMPI_MCA_*), which change timings.
mca=$(env | grep '^OMPI_MCA_' | sort | tr '\n' ' ')
[ -z "$mca" ] || echo "- environment: $mca"
