// Built three times, once per algorithm: allreduce_master_worker, _ring, _tree.
#include "program.hpp"

int main(int argc, char** argv) { return commlab::allreduce_main(argc, argv, COMMLAB_ALGORITHM); }
