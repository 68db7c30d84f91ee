// The host runtime utilities besides parallel_for: the core count, residue splits, the allocator that leaves
// buffers unfilled, and the malloc settings.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cudp/host/default_init_allocator.hpp"
#include "cudp/host/host_cores.hpp"
#include "cudp/host/keep_freed_memory.hpp"
#include "cudp/host/residue_split.hpp"

TEST_CASE("usable_cores: at least one", "[host]") { REQUIRE(cudp::host::usable_cores() >= 1); }

TEST_CASE("residue_split: parts cover every sequence once, in order, with about equal residues", "[host]") {
  // Lengths 10, 1, 1, 10, 4, 6: 32 residues.
  const std::vector<std::uint64_t> offsets{0, 10, 11, 12, 22, 26, 32};
  const std::size_t count = offsets.size() - 1;
  for (int parts : {1, 2, 3, 4, 8}) {
    std::size_t next = 0;
    for (int p = 0; p < parts; ++p) {
      const auto [first, last] = cudp::host::residue_split(offsets.data(), count, p, parts);
      REQUIRE(first == next);
      REQUIRE(last >= first);
      next = last;
    }
    REQUIRE(next == count);
  }
  // Two parts: the second starts at the first sequence starting at or past residue 16 (sequence 4, at 22).
  REQUIRE(cudp::host::residue_split(offsets.data(), count, 0, 2) == std::pair<std::size_t, std::size_t>{0, 4});
  REQUIRE(cudp::host::residue_split(offsets.data(), count, 1, 2) == std::pair<std::size_t, std::size_t>{4, 6});
  // More parts than sequences leaves some empty.
  const std::vector<std::uint64_t> one{5, 9};
  std::size_t sequences = 0;
  for (int p = 0; p < 3; ++p) {
    const auto [first, last] = cudp::host::residue_split(one.data(), 1, p, 3);
    sequences += last - first;
  }
  REQUIRE(sequences == 1);
  REQUIRE_THROWS_AS(cudp::host::residue_split(offsets.data(), count, 2, 2), std::invalid_argument);
  REQUIRE_THROWS_AS(cudp::host::residue_split(offsets.data(), count, 0, 0), std::invalid_argument);
}

TEST_CASE("DefaultInitAllocator: a vector that keeps values given to it", "[host]") {
  std::vector<int, cudp::host::DefaultInitAllocator<int>> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i);
  v.resize(2000);
  v.push_back(7);
  REQUIRE(v[999] == 999);
  REQUIRE(v.back() == 7);
  std::vector<int, cudp::host::DefaultInitAllocator<int>> w(3, 5);  // an explicit value is still written
  REQUIRE(w == std::vector<int, cudp::host::DefaultInitAllocator<int>>{5, 5, 5});
}

TEST_CASE("keep_freed_memory: callable, and allocation still works after it", "[host]") {
  cudp::host::keep_freed_memory();
  std::vector<char> big(64 << 20, 'x');
  REQUIRE(big.back() == 'x');
}
