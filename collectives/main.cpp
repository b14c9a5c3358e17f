// Built once per operation: sendrecv, bcast, reduce, scatter, gather, allgather,
// reduce_scatter, alltoall, barrier.
#include "collective.hpp"

int main(int argc, char** argv) { return commlab::collective_main(argc, argv, COMMLAB_OPERATION); }
