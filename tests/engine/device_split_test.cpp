// deal_longest_first and gather_targets (include/cudp/engine/device_split.hpp): every target lands in exactly one
// part, in database order there; parts differ in residues by at most the longest target; a part of a database with
// fewer targets than parts is empty; a subset's residues are its targets' own.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "cudp/engine/device_split.hpp"
#include "../support/reference_dp.hpp"

using cudp::engine::deal_longest_first;
using cudp::engine::gather_targets;

namespace {
std::uint64_t residues_of(const cudp::test::CodesSet& db, const std::vector<std::uint32_t>& targets) {
  std::uint64_t sum = 0;
  for (const std::uint32_t t : targets) sum += db.get(t).size();
  return sum;
}
}  // namespace

TEST_CASE("deal_longest_first: each target once, parts balanced within the longest target", "[engine][split]") {
  std::mt19937_64 rng(17);
  cudp::test::CodesSet db;
  std::uint32_t longest = 0;
  for (int k = 0; k < 3000; ++k) {
    // Mostly short, a few very long: the case where cutting the database in contiguous runs would leave one part
    // with the long ones.
    const std::uint32_t length = k % 97 == 0 ? 5000 + rng() % 30000 : 1 + rng() % 600;
    longest = std::max(longest, length);
    db.add(cudp::test::random_codes(rng, length, 20));
  }
  const auto view = cudp::engine::view_of(db);
  for (int parts : {1, 2, 3, 8}) {
    INFO("parts " << parts);
    const auto dealt = deal_longest_first(view, parts);
    REQUIRE(dealt.size() == static_cast<std::size_t>(parts));
    std::vector<int> seen(db.size(), 0);
    std::uint64_t low = UINT64_MAX, high = 0;
    for (const auto& part : dealt) {
      REQUIRE(std::is_sorted(part.begin(), part.end()));
      for (const std::uint32_t t : part) ++seen[t];
      low = std::min(low, residues_of(db, part));
      high = std::max(high, residues_of(db, part));
    }
    REQUIRE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    CHECK(high - low <= longest);
  }
}

TEST_CASE("deal_longest_first: more parts than targets leaves parts empty", "[engine][split]") {
  cudp::test::CodesSet db;
  db.add({1, 2, 3});
  db.add({4, 5});
  const auto dealt = deal_longest_first(cudp::engine::view_of(db), 4);
  REQUIRE(dealt[0] == std::vector<std::uint32_t>{0});
  REQUIRE(dealt[1] == std::vector<std::uint32_t>{1});
  REQUIRE(dealt[2].empty());
  REQUIRE(dealt[3].empty());
  REQUIRE_THROWS_AS(deal_longest_first(cudp::engine::view_of(db), 0), std::invalid_argument);
}

TEST_CASE("gather_targets copies the residues of its targets", "[engine][split]") {
  std::mt19937_64 rng(5);
  cudp::test::CodesSet db;
  for (int k = 0; k < 50; ++k) db.add(cudp::test::random_codes(rng, rng() % 40, 20));  // some empty
  const auto subset = gather_targets(cudp::engine::view_of(db), {1, 7, 8, 30, 49});
  const auto view = subset.view();
  REQUIRE(view.count == 5);
  for (std::size_t i = 0; i < subset.size(); ++i) {
    const auto& whole = db.get(subset.targets[i]);
    REQUIRE(std::vector<std::uint8_t>(view.data(i), view.data(i) + view.length(i)) == whole);
  }
  REQUIRE(gather_targets(cudp::engine::view_of(db), {}).view().count == 0);
}
