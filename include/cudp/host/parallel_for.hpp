#pragma once
// The host's cooperation scope: items handed out one at a time to a pool of threads, so that uneven items (long
// and short targets, alignments of any size) balance themselves.
#include <algorithm>
#include <atomic>
#include <chrono>
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
// parallel steps pays at every step. Between jobs a worker spins a while before it sleeps, and so does the caller
// waiting for the last worker: a loop of short parallel steps (a progressive alignment's joins, a millisecond each)
// would otherwise pay a sleeping thread's wake-up at every step. One job at a time; a caller that finds the pool
// busy (another thread's job, or a body calling parallel_for) gets threads of its own, as before, so that nothing
// waits on the pool.
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
      stopping_.store(true);
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
      job_.store(&job, std::memory_order_relaxed);
      pending_.store(workers - 1, std::memory_order_relaxed);
      // The generation and the job's thread count in one word, so that a worker reads both of one job.
      const std::uint64_t generation = (state_.load(std::memory_order_relaxed) >> kWorkerBits) + 1;
      state_.store(generation << kWorkerBits | static_cast<std::uint64_t>(workers), std::memory_order_release);
    }
    wake_.notify_all();
    job();
    if (!spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> hold(lock_);
      done_.wait(hold, [&] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    return true;
  }

 private:
  static constexpr int kWorkerBits = 16;
  WorkerPool() = default;

  // Spins for about 200 microseconds or until ready() holds; whether it held.
  template <class Ready>
  static bool spin_until(Ready ready) {
    const auto start = std::chrono::steady_clock::now();
    for (int round = 0;; ++round) {
      for (int k = 0; k < 64; ++k) {
        if (ready()) return true;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
        __builtin_ia32_pause();
#endif
      }
      if (std::chrono::steady_clock::now() - start > std::chrono::microseconds(200)) return ready();
    }
  }

  void serve(int index) {
    std::uint64_t seen = 0;  // the last generation served or passed over
    while (true) {
      std::uint64_t state = state_.load(std::memory_order_acquire);
      const auto fresh = [&] {
        state = state_.load(std::memory_order_acquire);
        return stopping_.load(std::memory_order_relaxed) || (state >> kWorkerBits) != seen;
      };
      if (!spin_until(fresh)) {
        std::unique_lock<std::mutex> hold(lock_);
        wake_.wait(hold, fresh);
      }
      if (stopping_.load()) return;
      seen = state >> kWorkerBits;
      if (index >= static_cast<int>(state & ((std::uint64_t{1} << kWorkerBits) - 1))) continue;
      (*job_.load(std::memory_order_relaxed))();
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        const std::lock_guard<std::mutex> hold(lock_);
        done_.notify_one();
      }
    }
  }

  std::atomic<bool> busy_{false};  // set by the caller whose job runs
  std::mutex lock_;                // for sleeping and waking
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  std::atomic<const std::function<void()>*> job_{nullptr};
  std::atomic<int> pending_{0};
  std::atomic<std::uint64_t> state_{0};  // generation << kWorkerBits | the job's thread count
  std::atomic<bool> stopping_{false};
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
