# Run at every build (the commlab_version target): the commit the programs
# are built from, into version.cpp and bin/version.txt, each rewritten only
# when it changes, so that a new commit rebuilds one file and a results
# folder's machine.md names the code that really ran (-dirty: with changes
# not committed). SRC: the source tree; BIN: the build tree; COMPILER, CUDA,
# NCCL: what --version says was built in (CMakeLists.txt).
execute_process(COMMAND git describe --always --dirty
                WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE COMMLAB_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT COMMLAB_VERSION)
  set(COMMLAB_VERSION unknown)
endif()
set(COMMLAB_COMPILER "${COMPILER}")
set(COMMLAB_CUDA_VERSION "${CUDA}")
set(COMMLAB_NCCL_VERSION "${NCCL}")
configure_file(${SRC}/harness/version.cpp.in ${BIN}/version.cpp @ONLY)
file(MAKE_DIRECTORY ${BIN}/bin)
file(WRITE ${BIN}/version.txt.new "${COMMLAB_VERSION}\n")
file(COPY_FILE ${BIN}/version.txt.new ${BIN}/bin/version.txt ONLY_IF_DIFFERENT)
