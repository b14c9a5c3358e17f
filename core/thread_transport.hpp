// Ranks as threads of one process, the way Gloo tests its algorithms: every
// schedule at any P in a fraction of a second, without mpirun.
//
// Messages are copied into the receiver's inbox and matched in order per
// sender, as MPI matches them. A blocking send, and the wait for an isend,
// return only once the receiver has taken the message (MPI_Ssend's rule,
// which MPI may apply to any large message), so a schedule that would
// deadlock under MPI deadlocks here too, at every size. Every wait has a
// deadline: past it, the run fails naming the rank and what it waited for,
// instead of hanging. A message still unreceived when the run ends is an
// error too.
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "transport.hpp"

namespace commlab {

class ThreadWorld {
 public:
  // Starts P threads, which wait for run(); a world serves any number of runs.
  explicit ThreadWorld(int P, std::chrono::milliseconds timeout = std::chrono::seconds(20));
  ~ThreadWorld();
  ThreadWorld(const ThreadWorld&) = delete;
  ThreadWorld& operator=(const ThreadWorld&) = delete;
  int size() const { return P_; }

  // Runs body(this rank's transport) on the P threads at once. Rethrows the
  // first error of any rank (the others stop waiting at once); a message left
  // unreceived at the end is an error too.
  void run(const std::function<void(Transport&)>& body);

 private:
  void serve(int rank);  // a rank's thread: one body per run, until the world ends

  friend class ThreadTransport;
  struct Message {
    int from;
    std::vector<char> data;
    bool taken = false;
  };
  struct Inbox {
    std::deque<std::shared_ptr<Message>> queue;
    std::condition_variable changed;  // a message arrived here, or one this rank sent was taken
  };
  // Waits on cv until ready(): Timeout past the deadline (saying what(), the
  // thing waited for), and an end at once when another rank failed.
  template <class Ready, class What>
  void wait(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, Ready ready, int rank,
            What what);

  const int P_;
  const std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::vector<Inbox> inbox_;
  bool failed_ = false;
  // allgather: each rank's list; the lists of the last round complete.
  std::vector<std::vector<uint64_t>> slots_, gathered_;
  int arrived_ = 0;
  uint64_t round_ = 0;
  std::condition_variable round_done_;
  // The runs: the body, which run this is, how many ranks finished it, their errors.
  std::mutex run_mu_;
  std::condition_variable run_started_, run_finished_;
  const std::function<void(Transport&)>* body_ = nullptr;
  uint64_t run_index_ = 0;
  int finished_ = 0;
  bool ending_ = false;
  std::vector<std::exception_ptr> errors_;
  std::vector<std::thread> threads_;
};

}  // namespace commlab
