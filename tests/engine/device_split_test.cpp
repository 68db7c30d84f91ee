// split_by_residues and slice_of (include/cudp/engine/device_split.hpp): the slices cover the database in order,
// each once; they hold about equal residues (within the longest target); a database with fewer targets than parts
// leaves slices empty; a slice's view is its targets' residues, with offsets from 0 as every scorer expects.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "cudp/engine/device_split.hpp"
#include "../support/reference_dp.hpp"

using cudp::engine::slice_of;
using cudp::engine::split_by_residues;

TEST_CASE("split_by_residues: contiguous slices covering the database, balanced within the longest target",
          "[engine][split]") {
  std::mt19937_64 rng(17);
  cudp::test::CodesSet db;
  std::uint64_t longest = 0;
  for (int k = 0; k < 3000; ++k) {
    const std::uint64_t length = k % 97 == 0 ? 5000 + rng() % 30000 : rng() % 600;  // some empty, a few very long
    longest = std::max(longest, length);
    db.add(cudp::test::random_codes(rng, length, 20));
  }
  const auto view = cudp::engine::view_of(db);
  for (int parts : {1, 2, 3, 8}) {
    INFO("parts " << parts);
    const auto slices = split_by_residues(view, parts);
    REQUIRE(slices.size() == static_cast<std::size_t>(parts));
    std::size_t next = 0;
    std::uint64_t low = UINT64_MAX, high = 0;
    for (const auto& slice : slices) {
      REQUIRE(slice.first == next);
      next += slice.view.count;
      REQUIRE(slice.view.offsets[0] == 0);
      for (std::size_t i = 0; i < slice.view.count; ++i) {
        const auto whole = db.get(slice.first + i);
        REQUIRE(std::vector<std::uint8_t>(slice.view.data(i), slice.view.data(i) + slice.view.length(i)) == whole);
      }
      const std::uint64_t residues = slice.view.count ? slice.view.offsets[slice.view.count] : 0;
      low = std::min(low, residues);
      high = std::max(high, residues);
    }
    REQUIRE(next == db.size());
    CHECK(high - low <= 2 * longest);
  }
}

TEST_CASE("split_by_residues: more parts than targets leaves slices empty", "[engine][split]") {
  cudp::test::CodesSet db;
  db.add({1, 2, 3});
  db.add({4, 5});
  const auto slices = split_by_residues(cudp::engine::view_of(db), 4);
  std::size_t targets = 0, empty = 0;
  for (const auto& slice : slices) {
    targets += slice.view.count;
    empty += slice.view.count == 0;
  }
  REQUIRE(targets == 2);
  REQUIRE(empty == 2);
  REQUIRE_THROWS_AS(split_by_residues(cudp::engine::view_of(db), 0), std::invalid_argument);
  const auto none = split_by_residues(cudp::engine::view_of(cudp::test::CodesSet{}), 3);
  REQUIRE(none.size() == 3);
  REQUIRE(none[2].view.count == 0);
}

TEST_CASE("slice_of views targets [first, last) with offsets from 0", "[engine][split]") {
  cudp::test::CodesSet db;
  db.add({1, 2});
  db.add({3});
  db.add({});
  db.add({4, 5, 6});
  const auto slice = slice_of(cudp::engine::view_of(db), 1, 4);
  REQUIRE(slice.first == 1);
  REQUIRE(slice.view.count == 3);
  REQUIRE(slice.offsets == std::vector<std::uint64_t>{0, 1, 1, 4});
  REQUIRE(slice.view.data(2)[0] == 4);
  REQUIRE(slice_of(cudp::engine::view_of(db), 2, 2).view.count == 0);
}
