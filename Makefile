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
# Tests at a time: two a core. Most are mpirun launches whose ranks spend
# much of their time starting up and waiting for each other (a test declares
# its 2 ranks' cores, PROCESSORS 2, so ctest -j JOBS ran them one at a time);
# two a core keep the cores busy: make test 804 -> 616 s on CI's 2 cores.
# The tests that must run alone say so (RUN_SERIAL).
TEST_JOBS ?= $(shell echo $$((2 * $$(nproc))))
CMAKE_FLAGS ?=

# Open MPI refuses root without these; the scripts and tests run as root in CI.
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

.PHONY: all deps build lab lab-register format test check check-slow bench ps-bench auto-bench direct-bench ring-bench gpu-bench fuzz clean

all: build

deps:
	@bash scripts/deps.sh

# A path made one shell word, whatever it holds: in single quotes, each
# single quote in it closed, escaped and reopened. CMAKE_FLAGS alone is
# passed as given, by design: it is several flags, which the shell splits.
quote = '$(subst ','\'',$(1))'

# SITE_SETUP=FILE (docs/slurm.md): sourced before the build, as before every
# job, so that both see the same MPI (module load, spack load, a venv).
SETUP = $(if $(SITE_SETUP),. $(call quote,$(abspath $(SITE_SETUP))) &&,)

build: deps
	$(SETUP) cmake -S . -B $(call quote,$(BUILD)) $(CMAKE_FLAGS) && cmake --build $(call quote,$(BUILD)) -j $(JOBS)

# The labs' programs alone (lab 06: a new algorithm rebuilt in seconds).
lab: deps
	$(SETUP) cmake -S . -B $(call quote,$(BUILD)) $(CMAKE_FLAGS) && cmake --build $(call quote,$(BUILD)) -j $(JOBS) --target lab

# Lab 06: adds allreduce_algos/$(NAME).cpp to the algorithms the build knows,
# once, among the message-passing ones (lab/06-implement/register.sh). NAME
# is checked here, before any shell sees it, as register.sh wants it
# ([a-z_][a-z0-9_]*): its raw text ($(value NAME), so that a $(shell ...) in
# it is never expanded) must be one word, not start with a digit, and leave
# nothing once every letter, digit and _ is taken out.
name_chars := a b c d e f g h i j k l m n o p q r s t u v w x y z 0 1 2 3 4 5 6 7 8 9 _
without = $(if $(2),$(call without,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
name_ok = $(and $(filter 1,$(words $(value NAME))),$(if $(call without,$(value NAME),$(name_chars)),,ok),$(if $(filter 0% 1% 2% 3% 4% 5% 6% 7% 8% 9%,$(value NAME)),,ok))
lab-register:
	$(if $(name_ok),,$(error NAME must be a lowercase name (letters, digits and _, not a digit first), as the algorithm's file is named: make lab-register NAME=my_ring))
	bash lab/06-implement/register.sh $(value NAME)

# The sources as .clang-format writes them (make check's `format` test checks it).
format: deps
	git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' '*.cu' '*.h' | xargs clang-format -i

test: build
	cd $(call quote,$(BUILD)) && ctest --output-on-failure -j $(TEST_JOBS) -LE check

# The slow tests alone (labelled check); make check is make test, then these.
check-slow: build
	cd $(call quote,$(BUILD)) && ctest --output-on-failure -j $(TEST_JOBS) -L check

check: test check-slow

# Into folders git does not track (results/mine, results/mine_ps): the
# committed reference runs change only on purpose, e.g.
# make bench BENCH_OUT=results/local PS_OUT=results/ps_local
BENCH_OUT ?= results/mine
PS_OUT ?= results/mine_ps
bench: build
	FRESH=1 OUT=$(call quote,$(BENCH_OUT)) bash bench/sweep.sh
	OUT=$(call quote,$(PS_OUT)) bash bench/ps_sweep.sh

ps-bench: build
	bash bench/ps_sweep.sh

# -a auto against MPI_Allreduce, three runs at P = 2 and 4 (results/mine_auto).
auto-bench: build
	bash bench/auto_bench.sh

# Every all-reduce algorithm on an emulated ring of 8 nodes at 100 Mbit/s
# (as root, in network namespaces), where hop distance decides; into
# results/mine_ring, or RING_OUT (docs/slurm.md). About 30 minutes.
RING_OUT ?= results/mine_ring
ring-bench: build
	OUT=$(call quote,$(RING_OUT)) bash bench/ring_sweep.sh

# -a auto over direct access (ranks reading each other's memory) against
# MPI_Allreduce, three runs at P = 2 and 4 (results/mine_direct, docs/direct.md).
direct-bench: build
	OUT=results/mine_direct SIZES=1K:16M EXTRA="--transport direct" bash bench/auto_bench.sh

# On a machine with a GPU: the GPU suite into results/mine_gpu (RUN=NAME: results/NAME).
gpu-bench: build
	bash bench/gpu_sweep.sh

# The fuzz targets (tests/fuzz/), FUZZ_SECONDS each; make test runs them for 20 s.
FUZZ_SECONDS ?= 600
fuzz: deps
	bash tests/fuzz_test.sh . $(call quote,$(BUILD)/fuzz) $(call quote,$(FUZZ_SECONDS))

clean:
	rm -rf $(call quote,$(BUILD))
