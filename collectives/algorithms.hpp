// The hand-written algorithms of every operation but all-reduce (whose
// algorithms are listed in allreduce_algos/algorithms.def), one file each,
// and their models: each replays its schedule into a Tally. The tally_ forms
// add one algorithm's messages to a Tally, so an algorithm built from two
// others adds both. Included by the operations that list them and by the
// algorithms built of others.
#pragma once
#include "algorithm.hpp"

namespace commlab {

void sendrecv_pingpong(const CollectiveJob&);
void sendrecv_exchange(const CollectiveJob&);
void bcast_linear(const CollectiveJob&);
void bcast_binomial(const CollectiveJob&);
void bcast_scatter_allgather(const CollectiveJob&);
void bcast_bine(const CollectiveJob&);
void reduce_linear(const CollectiveJob&);
void reduce_binomial(const CollectiveJob&);
// Its copies of a rank's input (CollectiveAlgorithm::own_copies): the
// root's into its result, not in place; a rank with a child's into scratch.
int reduce_binomial_own_copies(int P, int root, int rank, bool in_place);
void reduce_bine(const CollectiveJob&);
void scatter_linear(const CollectiveJob&);
void scatter_binomial(const CollectiveJob&);
void scatter_bine(const CollectiveJob&);
void gather_linear(const CollectiveJob&);
void gather_binomial(const CollectiveJob&);
void gather_bine(const CollectiveJob&);
void allgather_ring(const CollectiveJob&);
void allgather_recursive_doubling(const CollectiveJob&);
void allgather_bruck(const CollectiveJob&);
void allgather_bine(const CollectiveJob&);
void reduce_scatter_ring(const CollectiveJob&);
void reduce_scatter_pairwise(const CollectiveJob&);
void reduce_scatter_bine(const CollectiveJob&);
void alltoall_pairwise(const CollectiveJob&);
void alltoall_bine(const CollectiveJob&);
void barrier_linear(const CollectiveJob&);
void barrier_dissemination(const CollectiveJob&);

Traffic model_sendrecv_pingpong(int P, size_t count, size_t esize, int root);
Traffic model_sendrecv_exchange(int P, size_t count, size_t esize, int root);
Traffic model_bcast_linear(int P, size_t count, size_t esize, int root);
Traffic model_bcast_binomial(int P, size_t count, size_t esize, int root);
Traffic model_bcast_scatter_allgather(int P, size_t count, size_t esize, int root);
Traffic model_bcast_bine(int P, size_t count, size_t esize, int root);
Traffic model_reduce_linear(int P, size_t count, size_t esize, int root);
Traffic model_reduce_binomial(int P, size_t count, size_t esize, int root);
Traffic model_reduce_bine(int P, size_t count, size_t esize, int root);
Traffic model_scatter_linear(int P, size_t count, size_t esize, int root);
Traffic model_scatter_binomial(int P, size_t count, size_t esize, int root);
Traffic model_scatter_bine(int P, size_t count, size_t esize, int root);
Traffic model_gather_linear(int P, size_t count, size_t esize, int root);
Traffic model_gather_binomial(int P, size_t count, size_t esize, int root);
Traffic model_gather_bine(int P, size_t count, size_t esize, int root);
Traffic model_allgather_ring(int P, size_t count, size_t esize, int root);
Traffic model_allgather_recursive_doubling(int P, size_t count, size_t esize, int root);
Traffic model_allgather_bruck(int P, size_t count, size_t esize, int root);
Traffic model_allgather_bine(int P, size_t count, size_t esize, int root);
Traffic model_reduce_scatter_ring(int P, size_t count, size_t esize, int root);
Traffic model_reduce_scatter_pairwise(int P, size_t count, size_t esize, int root);
Traffic model_reduce_scatter_bine(int P, size_t count, size_t esize, int root);
Traffic model_alltoall_pairwise(int P, size_t count, size_t esize, int root);
Traffic model_alltoall_bine(int P, size_t count, size_t esize, int root);
Traffic model_barrier_linear(int P, size_t count, size_t esize, int root);
Traffic model_barrier_dissemination(int P, size_t count, size_t esize, int root);
std::string remark_allgather_recursive_doubling(int P);
std::string remark_alltoall_bine(int P);
void tally_scatter_binomial(Tally& t, int P, size_t count, size_t esize, int root, int first_step);
void tally_reduce_binomial(Tally& t, int P, size_t count, size_t esize, int root, int first_step);
void tally_bcast_binomial(Tally& t, int P, size_t count, size_t esize, int root, int first_step);
void tally_bcast_bine(Tally& t, int P, size_t count, size_t esize, int root, int first_step);
void tally_reduce_bine(Tally& t, int P, size_t count, size_t esize, int root, int first_step);

}  // namespace commlab
