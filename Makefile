# Thin wrapper over CMake. `make bench`, `make test` and `make check` each
# install what is missing, build, and run. `make bench` is both sweeps: the
# collectives (results/mine) and the parameter server (results/mine_ps).
# `make test` is the tests that say in minutes whether the code works; `make
# check` is every test (what CI runs: make test, then make check-slow): those, and every shape of P in process, the
# sanitizer build, fuzzing, the emulated GPU and the Slurm cluster.
# MPI=mpich: against Debian's MPICH (mpicxx.mpich, mpiexec.mpich) into
# build-mpich/, beside the Open MPI build, whose mpirun stays the default.
MPI ?=
ifeq ($(MPI),mpich)
BUILD ?= build-mpich
CMAKE_FLAGS ?= -DCOMMLAB_MPI=mpich -DCOMMLAB_CUDA=OFF
else ifneq ($(MPI),)
$(error MPI must be empty (the default mpirun's MPI) or mpich, not '$(MPI)')
endif
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?=

# Open MPI refuses root without these; the scripts and tests run as root in CI.
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

.PHONY: all deps build lab lab-register format test check check-slow bench ps-bench auto-bench direct-bench ring-bench gpu-bench fuzz clean

all: build

deps:
	@bash scripts/deps.sh

# SITE_SETUP=FILE (docs/slurm.md): sourced before the build, as before every
# job, so that both see the same MPI (module load, spack load, a venv).
SETUP = $(if $(SITE_SETUP),. "$(abspath $(SITE_SETUP))" &&,)

build: deps
	$(SETUP) cmake -S . -B $(BUILD) $(CMAKE_FLAGS) && cmake --build $(BUILD) -j $(JOBS)

# The labs' programs alone (lab 06: a new algorithm rebuilt in seconds).
lab: deps
	$(SETUP) cmake -S . -B $(BUILD) $(CMAKE_FLAGS) && cmake --build $(BUILD) -j $(JOBS) --target lab

# Lab 06: adds allreduce_algos/$(NAME).cpp to the algorithms the build knows,
# once, among the message-passing ones (lab/06-implement/register.sh).
lab-register:
	bash lab/06-implement/register.sh $(NAME)

# The sources as .clang-format writes them (make check's `format` test checks it).
format: deps
	git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' '*.cu' '*.h' | xargs clang-format -i

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE check

# The slow tests alone (labelled check); make check is make test, then these.
check-slow: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L check

check: test check-slow

# Into folders git does not track (results/mine, results/mine_ps): the
# committed reference runs change only on purpose, e.g.
# make bench BENCH_OUT=results/local PS_OUT=results/ps_local
BENCH_OUT ?= results/mine
PS_OUT ?= results/mine_ps
bench: build
	FRESH=1 OUT=$(BENCH_OUT) bash bench/sweep.sh
	OUT=$(PS_OUT) bash bench/ps_sweep.sh

ps-bench: build
	bash bench/ps_sweep.sh

# -a auto against MPI_Allreduce, three runs at P = 2 and 4 (results/local_auto).
auto-bench: build
	bash bench/auto_bench.sh

# Every all-reduce algorithm on an emulated ring of 8 nodes at 100 Mbit/s
# (as root, in network namespaces), where hop distance decides; into
# results/mine_ring, or RING_OUT (docs/slurm.md). About 30 minutes.
RING_OUT ?= results/mine_ring
ring-bench: build
	OUT=$(RING_OUT) bash bench/ring_sweep.sh

# -a auto over direct access (ranks reading each other's memory) against
# MPI_Allreduce, three runs at P = 2 and 4 (results/local_direct, docs/direct.md).
direct-bench: build
	OUT=results/local_direct SIZES=1K:16M EXTRA="--transport direct" bash bench/auto_bench.sh

# On a machine with a GPU: the GPU suite into results/gpu.
gpu-bench: build
	bash bench/gpu_sweep.sh

# The fuzz targets (tests/fuzz/), FUZZ_SECONDS each; make test runs them for 20 s.
FUZZ_SECONDS ?= 600
fuzz: deps
	bash tests/fuzz_test.sh . $(BUILD)/fuzz $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD)
