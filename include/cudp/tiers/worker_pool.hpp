#pragma once
// Host threads kept between calls, for work that comes in many short bursts: a batch's bookkeeping runs a dozen
// hand-outs of a few milliseconds each, and starting 16 threads for each cost about as much as the work (the
// protein batch of bench/RESULTS.md, 2026-12-02). One caller at a time: a second caller, or a body that hands out
// work of its own, is told the pool is taken and starts threads as before, so that no one waits for the pool and
// nothing deadlocks. The threads live until the process ends.
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "host_cores.hpp"

namespace cudp::tiers {

class WorkerPool {
 public:
  // The process's pool: one thread fewer than the usable cores, the caller being the last.
  static WorkerPool& shared() {
    static WorkerPool* pool = new WorkerPool(usable_cores() - 1);  // never destroyed: its threads outlive main
    return *pool;
  }

  // Runs `work` on the calling thread and on up to `helpers` pool threads, returning once every one of them has
  // returned; false, with nothing run, when the pool is taken. `work` must not throw.
  bool run(int helpers, const std::function<void()>& work) {
    {
      const std::lock_guard<std::mutex> hold(lock_);
      if (taken_ || threads_ == 0) return false;
      taken_ = true;
      work_ = &work;
      wanted_ = std::min(helpers, threads_);
      started_ = finished_ = 0;
      ++generation_;
    }
    wake_.notify_all();
    work();
    std::unique_lock<std::mutex> hold(lock_);
    wanted_ = started_;  // no one joins once the caller is done: every item has been handed out
    done_.wait(hold, [&] { return finished_ == started_; });
    work_ = nullptr;
    taken_ = false;
    return true;
  }

  int threads() const { return threads_; }

 private:
  explicit WorkerPool(int threads) : threads_(std::max(0, threads)) {
    for (int t = 0; t < threads_; ++t) std::thread([this] { serve(); }).detach();
  }

  void serve() {
    std::uint64_t joined = 0;  // the last generation this thread worked on
    std::unique_lock<std::mutex> hold(lock_);
    while (true) {
      wake_.wait(hold, [&] { return work_ != nullptr && generation_ != joined && started_ < wanted_; });
      joined = generation_;
      ++started_;
      const std::function<void()>* work = work_;
      hold.unlock();
      (*work)();
      hold.lock();
      if (++finished_ == started_) done_.notify_one();
    }
  }

  const int threads_;
  std::mutex lock_;
  std::condition_variable wake_, done_;
  const std::function<void()>* work_ = nullptr;
  bool taken_ = false;
  int wanted_ = 0, started_ = 0, finished_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace cudp::tiers
