#pragma once
// A database built target by target for tests: each target kept whole beside the packed residues and offsets that
// the engine reads.
#include <cstdint>
#include <vector>

#include <cudp/engine/sequences.hpp>

namespace cudp::test {

struct TestDatabase {
  std::vector<std::vector<std::uint8_t>> targets;
  std::vector<std::uint8_t> residues;
  std::vector<std::uint64_t> offsets{0};

  void add(const std::vector<std::uint8_t>& t) {
    targets.push_back(t);
    residues.insert(residues.end(), t.begin(), t.end());
    offsets.push_back(residues.size());
  }
  engine::SequencesView view() const { return {residues.data(), offsets.data(), targets.size()}; }
};

}  // namespace cudp::test
