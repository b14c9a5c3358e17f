#include "thread_transport.hpp"

#include <fmt/format.h>

#include <cstring>
#include <exception>

namespace commlab {

namespace {
struct Aborted {};  // another rank failed first: its error is the one to report

// The first entry of a queue of messages or receives that is from `from`.
template <class Queue>
typename Queue::iterator first_from(Queue& q, int from) {
  auto it = q.begin();
  while (it != q.end() && (*it)->from != from) ++it;
  return it;
}
}  // namespace

template <class Ready, class What>
void ThreadWorld::wait(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, Ready ready,
                       int rank, What what) {
  if (ready()) return;
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (!ready()) {
    if (failed_) throw Aborted{};
    if (cv.wait_until(lock, deadline) == std::cv_status::timeout && !ready())
      throw Timeout(fmt::format("rank {} of {} waited {} ms for {}: the schedule deadlocks", rank,
                                P_, timeout_.count(), what()));
  }
}

class ThreadTransport : public Transport {
 public:
  ThreadTransport(ThreadWorld& w, int rank) : w_(w), me_(rank) {}
  TransportKind kind() const override { return TransportKind::in_process; }
  int rank() const override { return me_; }
  int size() const override { return w_.P_; }

  void exchange(int to, const void* s, size_t sbytes, int from, void* r, size_t rbytes,
                const Fold* fold) override {
    std::shared_ptr<ThreadWorld::Message> sent;
    if (to != kNoRank) sent = post(to, s, sbytes);
    if (from != kNoRank) {
      wait_filled(receive(from, r, rbytes));  // after any irecv from `from`, as MPI matches
      if (fold) fold->landed(r, 0, rbytes);
    }
    // A send alone waits for its receiver; beside a receive it is done once
    // that is (a message never received is still caught, at the end of the run).
    if (sent && from == kNoRank) wait_taken(sent);
  }
  void isend(int to, const void* buf, size_t bytes) override {
    sends_.push_back(post(to, buf, bytes));
  }
  void irecv(int from, void* buf, size_t bytes) override {
    recvs_.push_back(receive(from, buf, bytes));
  }
  void wait_sends() override {
    for (auto& m : sends_) wait_taken(m);
    sends_.clear();
  }
  void wait_all() override {
    for (const auto& p : recvs_) wait_filled(p);
    recvs_.clear();
    wait_sends();
  }
  bool test_all() override {
    {
      std::lock_guard lock(w_.mu_);
      if (w_.failed_) throw Aborted{};
      for (const auto& p : recvs_)
        if (!p->filled) return false;
      for (const auto& m : sends_)
        if (!m->taken) return false;
    }
    wait_all();  // each already done: its size checked
    return true;
  }
  int probe_any() override {
    std::unique_lock lock(w_.mu_);
    auto& box = w_.inbox_[me_];
    w_.wait(
        lock, box.changed, [&] { return !box.queue.empty(); }, me_,
        [] { return std::string("a message from any rank"); });
    return box.queue.front()->from;
  }
  std::vector<std::vector<char>> allgather(const std::vector<char>& mine) override {
    std::unique_lock lock(w_.mu_);
    const uint64_t round = w_.round_;
    w_.slots_[me_] = mine;
    if (++w_.arrived_ == w_.P_) {
      w_.gathered_ = w_.slots_;
      w_.arrived_ = 0;
      ++w_.round_;
      w_.round_done_.notify_all();
    } else {
      w_.wait(
          lock, w_.round_done_, [&] { return w_.round_ != round; }, me_,
          [] { return std::string("every rank to reach the same collective"); });
    }
    return w_.gathered_;
  }

 private:
  void check_rank(int r) const {
    if (r < 0 || r >= w_.P_)
      throw std::logic_error(fmt::format("rank {} of {} names rank {}", me_, w_.P_, r));
  }
  // Rank `receiver`'s posted receive gets message m (taken from here on).
  void fill(ThreadWorld::Posted& p, ThreadWorld::Message& m, int receiver) {
    if (m.data.size() != p.bytes)
      p.error = fmt::format("rank {} expected {} bytes from rank {}, got {}", receiver, p.bytes,
                            m.from, m.data.size());
    else if (p.bytes)
      std::memcpy(p.buf, m.data.data(), p.bytes);
    p.filled = m.taken = true;
    w_.inbox_[m.from].changed.notify_all();
  }
  // Into the first receive `to` posted for this rank, or else its inbox.
  std::shared_ptr<ThreadWorld::Message> post(int to, const void* buf, size_t bytes) {
    check_rank(to);
    auto m = std::make_shared<ThreadWorld::Message>();
    m->from = me_;
    m->data.assign(static_cast<const char*>(buf), static_cast<const char*>(buf) + bytes);
    std::lock_guard lock(w_.mu_);
    auto& box = w_.inbox_[to];
    auto it = first_from(box.posted, me_);
    if (it == box.posted.end()) {
      box.queue.push_back(m);
    } else {
      fill(**it, *m, to);
      box.posted.erase(it);
    }
    box.changed.notify_all();
    return m;
  }
  // A receive of `bytes` from `from`: the first message from it already here,
  // or else posted for post() to fill. Every schedule knows its sizes: a
  // message of another size is an error.
  std::shared_ptr<ThreadWorld::Posted> receive(int from, void* buf, size_t bytes) {
    check_rank(from);
    auto p = std::make_shared<ThreadWorld::Posted>();
    p->from = from, p->buf = static_cast<char*>(buf), p->bytes = bytes;
    std::lock_guard lock(w_.mu_);
    auto& box = w_.inbox_[me_];
    auto it = first_from(box.queue, from);
    if (it == box.queue.end()) {
      box.posted.push_back(p);
    } else {
      fill(*p, **it, me_);
      box.queue.erase(it);
    }
    return p;
  }
  void wait_filled(const std::shared_ptr<ThreadWorld::Posted>& p) {
    std::unique_lock lock(w_.mu_);
    w_.wait(
        lock, w_.inbox_[me_].changed, [&] { return p->filled; }, me_,
        [&] { return fmt::format("{} bytes from rank {}", p->bytes, p->from); });
    if (!p->error.empty()) throw std::logic_error(p->error);
  }
  void wait_taken(const std::shared_ptr<ThreadWorld::Message>& m) {
    std::unique_lock lock(w_.mu_);
    w_.wait(
        lock, w_.inbox_[me_].changed, [&] { return m->taken; }, me_,
        [&] { return fmt::format("its message of {} bytes to be received", m->data.size()); });
  }

  ThreadWorld& w_;
  const int me_;
  std::vector<std::shared_ptr<ThreadWorld::Posted>> recvs_;  // this rank's, until wait_all
  std::vector<std::shared_ptr<ThreadWorld::Message>> sends_;
};

ThreadWorld::ThreadWorld(int P, std::chrono::milliseconds timeout)
    : P_(P), timeout_(timeout), inbox_(P), slots_(P), errors_(P) {
  threads_.reserve(P);
  for (int r = 0; r < P; ++r) threads_.emplace_back([this, r] { serve(r); });
}

ThreadWorld::~ThreadWorld() {
  {
    std::lock_guard lock(run_mu_);
    ending_ = true;
  }
  run_started_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadWorld::serve(int rank) {
  uint64_t done = 0;  // runs this thread has served
  for (;;) {
    const std::function<void(Transport&)>* body;
    {
      std::unique_lock lock(run_mu_);
      run_started_.wait(lock, [&] { return ending_ || run_index_ != done; });
      if (ending_) return;
      body = body_;
      done = run_index_;
    }
    ThreadTransport t(*this, rank);
    try {
      (*body)(t);
    } catch (const Aborted&) {
    } catch (const OtherRankFailed&) {
    } catch (...) {
      errors_[rank] = std::current_exception();
      std::lock_guard lock(mu_);
      failed_ = true;  // wake every waiting rank, so it stops
      for (Inbox& box : inbox_) box.changed.notify_all();
      round_done_.notify_all();
    }
    std::lock_guard lock(run_mu_);
    if (++finished_ == P_) run_finished_.notify_all();
  }
}

void ThreadWorld::run(const std::function<void(Transport&)>& body) {
  {
    std::unique_lock lock(run_mu_);
    body_ = &body;
    finished_ = 0;
    ++run_index_;
    run_started_.notify_all();
    run_finished_.wait(lock, [&] { return finished_ == P_; });
  }
  std::vector<std::exception_ptr> errors(P_);
  errors.swap(errors_);
  const bool failed = failed_;
  failed_ = false;
  arrived_ = 0;
  auto clear = [this] {
    for (Inbox& box : inbox_) box.queue.clear(), box.posted.clear();
  };
  for (auto& e : errors)
    if (e) {
      clear();
      std::rethrow_exception(e);
    }
  if (failed) throw std::logic_error("a rank stopped without an error");
  for (int r = 0; r < P_; ++r) {
    const Inbox& box = inbox_[r];
    std::string left;
    if (!box.queue.empty())
      left = fmt::format("rank {} left {} message(s) unreceived, the first from rank {}", r,
                         box.queue.size(), box.queue.front()->from);
    else if (!box.posted.empty())
      left = fmt::format("rank {} posted a receive from rank {} that nobody sent", r,
                         box.posted.front()->from);
    if (!left.empty()) {
      clear();
      throw std::logic_error(left);
    }
  }
}

}  // namespace commlab
