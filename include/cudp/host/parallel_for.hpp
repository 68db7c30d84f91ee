#pragma once
// The host's cooperation scope: items handed out one at a time to a pool of threads, so that uneven items (long
// and short targets, alignments of any size) balance themselves.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "host_cores.hpp"

namespace cudp::host {

namespace detail {

// The process's worker threads, kept between calls: creating and joining 16 threads costs about half a millisecond
// (an empty parallel_for over 100,000 items took 0.5-0.6 ms on a 16-core host), which a pipeline of several short
// parallel steps pays at every step. One job at a time; a caller that finds the pool busy (another thread's job, or a
// body calling parallel_for) gets threads of its own, as before, so that nothing waits on the pool.
class WorkerPool {
 public:
  static WorkerPool& instance() {
    static WorkerPool pool;
    return pool;
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool() {
    {
      const std::lock_guard<std::mutex> hold(lock_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

  // Runs job() on `workers` threads, one of them the calling thread, and returns once all have returned (job must
  // not throw). False, with nothing run, when the pool is busy. (A flag rather than a mutex: a body on the calling
  // thread that calls parallel_for would try to lock a mutex its own thread holds.)
  bool run(int workers, const std::function<void()>& job) {
    if (busy_.exchange(true, std::memory_order_acquire)) return false;
    struct Release {
      std::atomic<bool>& busy;
      ~Release() { busy.store(false, std::memory_order_release); }
    } release{busy_};
    {
      std::unique_lock<std::mutex> hold(lock_);
      while (static_cast<int>(threads_.size()) < workers - 1) {
        const int index = static_cast<int>(threads_.size()) + 1;
        threads_.emplace_back([this, index] { serve(index); });
      }
      job_ = &job;
      workers_ = workers;
      pending_ = workers - 1;
      ++generation_;
    }
    wake_.notify_all();
    job();
    std::unique_lock<std::mutex> hold(lock_);
    done_.wait(hold, [&] { return pending_ == 0; });
    job_ = nullptr;
    return true;
  }

 private:
  WorkerPool() = default;
  void serve(int index) {
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> hold(lock_);
    while (true) {
      wake_.wait(hold, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      if (index >= workers_) continue;
      const std::function<void()>* job = job_;
      hold.unlock();
      (*job)();
      hold.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::atomic<bool> busy_{false};  // set by the caller whose job runs
  std::mutex lock_;                // guards what follows
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void()>* job_ = nullptr;
  int workers_ = 0, pending_ = 0;
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
};

}  // namespace detail

// Calls body(i) for every i in [0, n) on `threads` threads (0: all hardware threads); `setup()` makes each
// thread's scratch state, passed to body as its first argument. An exception thrown by a body stops the handing
// out of items and is rethrown here once every thread has stopped (the first one, if several threw).
template <class Setup, class Body>
void parallel_for(std::size_t n, int threads, Setup setup, Body body) {
  if (threads <= 0) threads = usable_cores();
  threads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), std::max<std::size_t>(1, n)));
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  auto worker = [&] {
    try {
      auto scratch = setup();
      for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) body(scratch, i);
    } catch (...) {
      next.store(n, std::memory_order_relaxed);
      const std::lock_guard<std::mutex> hold(failure_lock);
      if (!failure) failure = std::current_exception();
    }
  };
  if (threads == 1) {
    worker();
  } else if (!detail::WorkerPool::instance().run(threads, worker)) {
    std::vector<std::thread> pool;
    for (int w = 0; w < threads; ++w) pool.emplace_back(worker);
    for (auto& th : pool) th.join();
  }
  if (failure) std::rethrow_exception(failure);
}

// parallel_for for many small items (a pair's bookkeeping, an alignment to rescore): they are handed out in runs of
// about n / (32 threads) consecutive items, since one atomic increment per item, contended by every thread, can
// cost more than the item itself. Uneven items still balance, to a thirty-second of a thread's share.
template <class Setup, class Body>
void parallel_for_small_items(std::size_t n, int threads, Setup setup, Body body) {
  if (threads <= 0) threads = usable_cores();
  const std::size_t run = std::max<std::size_t>(1, n / (32 * static_cast<std::size_t>(threads)));
  parallel_for((n + run - 1) / run, threads, setup, [&](auto& scratch, std::size_t r) {
    const std::size_t end = std::min(n, (r + 1) * run);
    for (std::size_t i = r * run; i < end; ++i) body(scratch, i);
  });
}

// Calls body(i) for every i in [0, n), each on a thread of its own (the calling thread when n is 1), so that the
// items run side by side whatever their number (one per GPU). Every item runs to its end; the first exception, in
// item order, is rethrown once all have.
template <class Body>
void each_on_own_thread(std::size_t n, Body body) {
  std::vector<std::exception_ptr> errors(n);
  const auto run = [&](std::size_t i) {
    try {
      body(i);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  if (n == 1) {
    run(0);
  } else {
    std::vector<std::thread> pool;
    for (std::size_t i = 0; i < n; ++i) pool.emplace_back(run, i);
    for (auto& th : pool) th.join();
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace cudp::host
