// Catch2's implementation (CATCH_CONFIG_RUNNER: without a main), compiled
// once for every test program: the single header's implementation takes
// longer to compile than any test file. Catch's Session is declared only
// here, so the mains call it through catch_run (catch_run.hpp).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_run.hpp"

int catch_run(int argc, char** argv) { return Catch::Session().run(argc, argv); }
