// The main of the test programs that need nothing before their tests
// (mpi_transport_test.cpp starts MPI first).
#include "catch_run.hpp"

int main(int argc, char** argv) { return catch_run(argc, argv); }
