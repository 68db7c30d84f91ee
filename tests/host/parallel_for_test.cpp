// The host's work sharing: every item once, on any number of threads, and a body's exception carried to the caller
// instead of ending the process.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cudp/host/parallel_for.hpp"

TEST_CASE("parallel_for: every item exactly once", "[host]") {
  for (int threads : {0, 1, 3, 64}) {
    std::vector<std::atomic<int>> visits(1000);
    cudp::host::parallel_for(
        visits.size(), threads, [] { return 0; }, [&](int, std::size_t i) { ++visits[i]; });
    for (auto& v : visits) REQUIRE(v == 1);
  }
}

TEST_CASE("parallel_for: a body's exception reaches the caller and stops the handing out", "[host]") {
  for (int threads : {1, 4}) {
    std::atomic<int> done{0};
    REQUIRE_THROWS_WITH(cudp::host::parallel_for(
                            100000, threads, [] { return 0; },
                            [&](int, std::size_t i) {
                              if (i == 10) throw std::runtime_error("item 10");
                              // Items long enough that the others cannot all be handed out while the thread that
                              // took item 10 waits for a core.
                              std::this_thread::sleep_for(std::chrono::microseconds(20));
                              ++done;
                            }),
                        "item 10");
    CHECK(done < 100000 - 1);
  }
}

TEST_CASE("parallel_for_small_items: every item exactly once, in runs, with each thread's scratch", "[host]") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{1000}, std::size_t{100003}})
    for (int threads : {0, 1, 3, 64}) {
      INFO(n << " items, " << threads << " threads");
      std::vector<std::atomic<int>> visits(n);
      std::atomic<int> scratches{0};
      cudp::host::parallel_for_small_items(
          n, threads, [&] { return ++scratches; }, [&](int, std::size_t i) { ++visits[i]; });
      for (auto& v : visits) REQUIRE(v == 1);
      CHECK(scratches <= (threads == 0 ? 1 << 20 : threads));
    }
  REQUIRE_THROWS_WITH(cudp::host::parallel_for_small_items(
                          100000, 4, [] { return 0; },
                          [&](int, std::size_t i) {
                            if (i == 77) throw std::runtime_error("item 77");
                          }),
                      "item 77");
}

TEST_CASE("parallel_for: workers are kept between calls, and a busy pool still runs every call", "[host]") {
  // Two calls in a row run on the same threads: the second starts none of its own.
  auto ids_of_a_call = [] {
    std::mutex lock;
    std::set<std::thread::id> ids;
    cudp::host::parallel_for(
        64, 4, [] { return 0; },
        [&](int, std::size_t) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          const std::lock_guard<std::mutex> hold(lock);
          ids.insert(std::this_thread::get_id());
        });
    return ids;
  };
  const std::set<std::thread::id> first = ids_of_a_call(), second = ids_of_a_call();
  CHECK(first.size() > 1);
  for (const auto& id : second) CHECK(first.count(id) == 1);

  // A body that calls parallel_for, and callers on several threads at once: the pool serves one, the others start
  // threads of their own, and every item is visited once.
  std::vector<std::atomic<int>> visits(8 * 100);
  cudp::host::each_on_own_thread(4, [&](std::size_t caller) {
    cudp::host::parallel_for(
        2, 3, [] { return 0; },
        [&](int, std::size_t half) {
          cudp::host::parallel_for_small_items(
              100, 3, [] { return 0; }, [&](int, std::size_t i) { ++visits[(2 * caller + half) * 100 + i]; });
        });
  });
  for (auto& v : visits) REQUIRE(v == 1);
}
