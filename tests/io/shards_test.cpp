#include "cudp/io/shards.hpp"

#include <catch2/catch.hpp>

#include "cudp/io/database_file.hpp"

#include "../support/same_sequences.hpp"
#include "../support/temp_dir.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

using cudp::io::DatabasePart;
using cudp::io::SequenceSet;
using cudp::io::shard_bounds;

namespace {

SequenceSet random_set(std::size_t count, std::uint32_t seed, bool with_empty) {
  std::mt19937 rng(seed);
  SequenceSet set;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<std::uint8_t> codes(with_empty && i % 7 == 3 ? 0 : 1 + rng() % 900);
    for (auto& c : codes) c = static_cast<std::uint8_t>(rng() % 20);
    set.add("s" + std::to_string(i), i % 2 ? "a description" : "", codes.data(), codes.size());
  }
  return set;
}

// The shards of `whole` concatenated again.
SequenceSet joined(const std::vector<SequenceSet>& shards) {
  SequenceSet set;
  for (const SequenceSet& shard : shards)
    for (std::size_t i = 0; i < shard.size(); ++i)
      set.add(shard.names[i], shard.descriptions[i], shard.data(i), shard.length(i));
  return set;
}

}  // namespace

TEST_CASE("shards cover the database in order, each sequence once, of about equal residues", "[shards]") {
  for (const bool with_empty : {false, true}) {
    const SequenceSet whole = random_set(200, 5, with_empty);
    for (int shards = 1; shards <= 9; ++shards) {
      std::size_t expected_first = 0;
      for (int k = 0; k < shards; ++k) {
        const auto [first, last] = shard_bounds(whole.offsets, k, shards);
        CHECK(first == expected_first);
        REQUIRE(last >= first);
        expected_first = last;
        // Every shard but the last starts within one sequence's residues of its share, so no shard holds more than
        // its share plus the longest sequence.
        const std::uint64_t residues = whole.offsets[last] - whole.offsets[first];
        CHECK(residues <= whole.total_residues() / shards + 900);
      }
      CHECK(expected_first == whole.size());
    }
  }
}

TEST_CASE("more shards than sequences, and no residues at all, leave shards empty", "[shards]") {
  const SequenceSet two = random_set(2, 9, false);
  std::size_t covered = 0;
  for (int k = 0; k < 5; ++k) {
    const auto [first, last] = shard_bounds(two.offsets, k, 5);
    covered += last - first;
  }
  CHECK(covered == 2);
  const SequenceSet none;
  for (int k = 0; k < 3; ++k) CHECK(shard_bounds(none.offsets, k, 3).second == 0);
  CHECK_THROWS(shard_bounds(two.offsets, 3, 3));
  CHECK_THROWS(shard_bounds(two.offsets, 0, 0));
}

TEST_CASE("a packed database read by shards gives the shards of the whole, and where each lies", "[shards]") {
  cudp::test::TempDir dir;
  const SequenceSet whole = random_set(300, 11, true);
  const std::string path = dir / "s.cudpdb";
  cudp::io::write_database(path, whole, cudp::bio::protein());
  for (const int shards : {1, 2, 3, 7, 400}) {
    std::vector<SequenceSet> from_file, from_memory;
    for (int k = 0; k < shards; ++k) {
      DatabasePart part, memory_part;
      cudp::io::DatabaseReadOptions options;
      options.shard = k;
      options.shards = shards;
      options.part = &part;
      options.threads = 3;
      from_file.push_back(cudp::io::read_database(path, cudp::bio::protein(), options));
      from_memory.push_back(cudp::io::take_shard(SequenceSet(whole), k, shards, &memory_part));
      cudp::test::require_same(from_file.back(), from_memory.back());
      CHECK(part.first == memory_part.first);
      CHECK(part.first == shard_bounds(whole.offsets, k, shards).first);
      CHECK(part.sequences == whole.size());
      CHECK(part.residues == whole.total_residues());
    }
    cudp::test::require_same(joined(from_file), whole);
  }
}
