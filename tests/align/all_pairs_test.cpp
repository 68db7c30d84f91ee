#include "cudp/align/all_pairs.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstddef>
#include <vector>

TEST_CASE("pair_at numbers the pairs i < j row by row", "[all_pairs]") {
  for (const std::size_t n : {0u, 1u, 2u, 3u, 7u, 64u, 300u}) {
    std::size_t p = 0;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j, ++p) {
        const auto [a, b] = cudp::align::pair_at(p, n);
        REQUIRE(a == i);
        REQUIRE(b == j);
      }
    }
    CHECK(p == cudp::align::pair_count(n));
  }
  // Far beyond where a double's square root could round the row wrongly.
  const std::size_t n = 3000000;
  const std::size_t last = cudp::align::pair_count(n) - 1;
  CHECK(cudp::align::pair_at(last, n) == std::pair<std::size_t, std::size_t>{n - 2, n - 1});
  CHECK(cudp::align::pair_at(n - 1, n) == std::pair<std::size_t, std::size_t>{1, 2});
}

TEST_CASE("for_all_pairs visits every pair once, on several threads", "[all_pairs]") {
  const std::size_t n = 57;
  std::vector<std::atomic<int>> seen(n * n);
  std::atomic<int> setups{0};
  cudp::align::for_all_pairs(
      n, 3, [&] { return ++setups; },
      [&](int&, std::size_t i, std::size_t j) { seen[i * n + j].fetch_add(1); });
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) CHECK(seen[i * n + j].load() == (i < j ? 1 : 0));
  }
  CHECK(setups.load() >= 1);
  CHECK(setups.load() <= 3);
}
