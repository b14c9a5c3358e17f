// Ranks as threads of one process, the way Gloo tests its algorithms: every
// schedule at any P in a fraction of a second, without mpirun.
//
// Messages are matched in order per sender, as MPI matches them: straight
// into a posted irecv, or else copied into the receiver's inbox. A blocking send, and the wait for
// an isend, return only once the receiver has taken the message (MPI_Ssend's rule, which MPI may
// apply to any large message), so a schedule that would deadlock under MPI that way deadlocks here
// too, at every size. (The send half of a sendrecv does not wait: a message never received is
// caught at the end of the run instead.) Every wait has a deadline: past it, the run fails naming
// the rank and what it waited for, instead of hanging. A message still unreceived when the run ends
// is an error too.
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

#include "core/comm/transport.hpp"

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
  // error of the lowest rank that failed (the others stop waiting at once);
  // a message left unreceived at the end is an error too.
  void run(const std::function<void(Transport&)>& body);

 private:
  void serve(int rank);  // a rank's thread: one body per run, until the world ends

  friend class ThreadTransport;
  struct Message {
    int from;
    std::vector<char> data;
    bool taken = false;
  };
  struct Posted {  // an irecv not yet matched, or matched and filled
    int from = 0;
    char* buf = nullptr;
    size_t bytes = 0;
    bool filled = false;
    std::string error;  // a message of another size
  };
  struct Inbox {
    std::deque<std::shared_ptr<Message>> queue;  // arrived before a receive was posted
    std::deque<std::shared_ptr<Posted>> posted;  // irecvs waiting for their message
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
  std::vector<std::vector<char>> slots_, gathered_;
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
