// The host's work sharing: every item once, on any number of threads, and a body's exception carried to the caller
// instead of ending the process.
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "cudp/tiers/parallel_for.hpp"

TEST_CASE("parallel_for: every item exactly once", "[tiers][host]") {
  for (int threads : {0, 1, 3, 64}) {
    std::vector<std::atomic<int>> visits(1000);
    cudp::tiers::parallel_for(
        visits.size(), threads, [] { return 0; }, [&](int, std::size_t i) { ++visits[i]; });
    for (auto& v : visits) REQUIRE(v == 1);
  }
}

TEST_CASE("parallel_for: a body's exception reaches the caller and stops the handing out", "[tiers][host]") {
  for (int threads : {1, 4}) {
    std::atomic<int> done{0};
    REQUIRE_THROWS_WITH(cudp::tiers::parallel_for(
                            100000, threads, [] { return 0; },
                            [&](int, std::size_t i) {
                              if (i == 10) throw std::runtime_error("item 10");
                              ++done;
                            }),
                        "item 10");
    CHECK(done < 100000 - 1);
  }
}

TEST_CASE("parallel_for_small_items: every item exactly once, in runs, with each thread's scratch", "[tiers][host]") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{1000}, std::size_t{100003}})
    for (int threads : {0, 1, 3, 64}) {
      INFO(n << " items, " << threads << " threads");
      std::vector<std::atomic<int>> visits(n);
      std::atomic<int> scratches{0};
      cudp::tiers::parallel_for_small_items(
          n, threads, [&] { return ++scratches; }, [&](int, std::size_t i) { ++visits[i]; });
      for (auto& v : visits) REQUIRE(v == 1);
      CHECK(scratches <= (threads == 0 ? 1 << 20 : threads));
    }
  REQUIRE_THROWS_WITH(cudp::tiers::parallel_for_small_items(
                          100000, 4, [] { return 0; },
                          [&](int, std::size_t i) {
                            if (i == 77) throw std::runtime_error("item 77");
                          }),
                      "item 77");
}
