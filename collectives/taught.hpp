// The traffic formulas the textbook teaches (the brief's table: P
// processes, N bytes, T traffic), each written once, as the text a row
// prints and as the number it states, so that the two cannot drift apart.
// An algorithm names the one it is taught with (CollectiveAlgorithm::taught);
// the report says which measured quantity each matches (analysis/formulas.hpp).
#pragma once
#include <cmath>

namespace commlab {

struct Taught {
  const char* formula;             // as a row's taught_formula column prints it
  double (*T)(int P, double N_B);  // its value, in bytes
};

namespace taught {
// What master-worker's master receives in its reduce phase.
inline constexpr Taught master_worker{"(P-1)*N", [](int P, double N) { return (P - 1) * N; }};
// The ring's bytes sent by each rank, and the bandwidth-optimal algorithms' with it.
inline constexpr Taught ring{"2*(N/P)*(P-1)",
                             [](int P, double N) { return 2 * (N / P) * (P - 1); }};
// A tree's bytes along one phase's critical path.
inline constexpr Taught tree{"log2(P)*N", [](int P, double N) { return std::log2(P) * N; }};
// Two trees, each carrying half the buffer both ways.
inline constexpr Taught two_trees{"2*N", [](int, double N) { return 2 * N; }};
}  // namespace taught

}  // namespace commlab
