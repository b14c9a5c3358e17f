// How bytes travel between ranks, underneath the counting. Comm (comm.hpp)
// counts and labels every message once; a Transport only moves bytes. There
// are five, and the algorithms cannot tell them apart:
//
//   MPI on host buffers, MPI reading GPU memory itself (CUDA-aware),
//   GPU memory staged through pinned host pieces     mpi_transport.cpp
//   ranks as threads of one process (the tests)       thread_transport.cpp
//   ranks on one node reading each other's memory     direct_transport.cpp
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/device/memory.hpp"
#include "core/vocabulary/failures.hpp"
#include "core/vocabulary/types.hpp"
#include "peers.hpp"

namespace commlab {

constexpr int kNoRank = -1;  // the side of an exchange that is not taken

// Over direct access (direct_transport.hpp): who writes and polls the flags
// that say a message is there and was read, the host or the device's kernels.
enum class Signals { host, device };

// A receive that reduces: acc (op)= what lands. A transport that receives
// into a buffer folds each piece in as it lands (while the next is in
// flight); the direct transport reduces straight from the sender's memory,
// in one pass, and does not write the receive buffer at all.
struct Fold {
  Memory* mem;
  const Reduction* red;
  char* acc;
  const char* mine = nullptr;  // if given: acc := mine (op) what lands (acc is not read)
  // Bytes [at, at + len) of `incoming` have landed: acc's same bytes (op)= them.
  void landed(const void* incoming, size_t at, size_t len) const {
    const char* in = static_cast<const char*>(incoming) + at;
    if (mine)
      mem->reduce_to(*red, acc + at, mine + at, in, len / red->esize());
    else
      mem->reduce(*red, acc + at, in, len / red->esize());
  }
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual TransportKind kind() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Blocking: send sbytes to `to` and receive rbytes from `from` at once;
  // either side may be kNoRank. With `fold`, what is received is reduced
  // into fold->acc (the receive buffer r is scratch the transport may use).
  virtual void exchange(int to, const void* s, size_t sbytes, int from, void* r, size_t rbytes,
                        const Fold* fold) = 0;
  // Non-blocking: completed by wait_all(), the sends alone by wait_sends().
  virtual void isend(int to, const void* buf, size_t bytes) = 0;
  virtual void irecv(int from, void* buf, size_t bytes) = 0;
  virtual void wait_sends() = 0;
  virtual void wait_all() = 0;
  // A round's messages are all posted and what follows may be compute, not
  // a wait: post anything held back now (the MPI transport holds a receive
  // until the next send is out, mpi_transport.cpp).
  virtual void round_posted() {}
  // Whether everything posted has completed (then as wait_all), without
  // waiting: how a schedule run non-blocking is progressed (executor.hpp).
  // Only MPI on host buffers and the threads have it.
  virtual bool test_all() {
    throw std::logic_error("the " + name(kind()) + " transport cannot test for completion");
  }
  // Blocks until a message from any rank is ready; returns its sender.
  virtual int probe_any() = 0;

  // Every rank's bytes, in rank order, on every rank (collective). A
  // Recorder gathers its records through this.
  virtual std::vector<std::vector<char>> allgather(const std::vector<char>& mine) = 0;
  // The MPI communicator underneath, for library calls; MPI_COMM_NULL if none.
  virtual MPI_Comm mpi() const { return MPI_COMM_NULL; }
  // Direct access to peers' memory (direct_transport.hpp); null where the
  // ranks cannot map each other's.
  virtual Peers* peers() { return nullptr; }
  // What this rank read from peers' memory and wrote into it, so far.
  virtual PeerBytes peer_bytes() const { return {}; }
};

// How a Comm over MPI builds its transport (core/transports/make_transport.hpp
// gives the one the programs use): Comm is handed it, so that what the
// algorithms see does not depend on the transports that implement it.
using MakeTransport =
    std::function<std::unique_ptr<Transport>(MPI_Comm, Memory&, TransportKind, Signals)>;

}  // namespace commlab
