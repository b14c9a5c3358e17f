#include "collective_program.hpp"
// Built once per operation (allreduce, sendrecv, bcast, ...), and once per
// all-reduce algorithm (allreduce_ring, ...: COMMLAB_ALGORITHM says which).

#ifndef COMMLAB_ALGORITHM
#define COMMLAB_ALGORITHM ""
#endif

int main(int argc, char** argv) {
  return commlab::collective_main(argc, argv, COMMLAB_OPERATION, COMMLAB_ALGORITHM);
}
