#!/usr/bin/env bash
# Debian's Open MPI, unpacked into one folder that can be copied to a machine
# without MPI (a rented GPU box, a container) and used there without root:
#   bash bench/portable_mpi.sh DIR       # here, on Debian 12, with apt
#   source DIR/env.sh                    # there; then mpirun as usual
# commlab's programs built here run there against it (with the two libraries
# of theirs that are not MPI's: fmt, and ALGLIB for the report's fit).
# Nothing is installed here.
source "$(dirname "$0")/args.sh" && answer_help "$0" "$@"
set -euo pipefail
die() { echo "error: $*" >&2; exit 2; }
[ $# = 1 ] || die "usage: portable_mpi.sh DIR, one folder to fill (portable_mpi.sh --help)"
[[ $1 != -* ]] || die "portable_mpi.sh takes the folder to fill, not the option '$1' (portable_mpi.sh --help)"
dir=$1
packages=(openmpi-bin libopenmpi3 openmpi-common libfmt9 libevent-core-2.1-7
          libevent-pthreads-2.1-7 libfabric1 libhwloc15 libibverbs1 libnl-3-200
          libnl-route-3-200 libnuma1 libpmix2 libpsm-infinipath1 libpsm2-2 librdmacm1 libucx0
          libmunge2 libpciaccess0 libudev1 libalglib3.19)
mkdir -p "$dir/debs" "$dir/root"
dir=$(cd "$dir" && pwd)
(cd "$dir/debs" && apt-get download "${packages[@]}" 2>&1 | grep -v "^W: Download is performed unsandboxed" || true)
for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root"; done
rm -rf "$dir/debs" "$dir/root/usr/share/doc" "$dir/root/usr/share/man"
# Debian names them through alternatives, which dpkg -x does not set up.
for tool in mpirun mpiexec; do ln -sf "$tool.openmpi" "$dir/root/usr/bin/$tool"; done
cat > "$dir/env.sh" <<'ENV'
# Open MPI from this folder: its prefix, its libraries and PMIx's plugins.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=$here/root/usr
export PATH=$here/root/usr/bin:$PATH
lib=$here/root/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$lib:$lib/openmpi/lib:$here/root/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PMIX_MCA_mca_base_component_path=$lib/pmix2/lib/pmix
export OMPI_MCA_mca_base_component_path=$lib/openmpi/lib/openmpi3
# A machine with a PMIx of its own (seen on a CUDA image) offers PMIx its
# plugins too; its zlib one fails to load against this one, and says so on
# stderr. Compression only shortens start-up messages.
export PMIX_MCA_pcompress=^zlib
export PMIX_MCA_pcompress_base_silence_warning=1
ENV
echo "Open MPI in $dir ($(du -sh "$dir" | cut -f1)); source $dir/env.sh to use it"
