#pragma once
// A query, a target and their reversals, as the SequencePair that align's passes and leaves read.
#include <cstdint>
#include <random>
#include <vector>

#include <cudp/align/row_passes.hpp>

#include "reference_dp.hpp"

namespace cudp::test {

struct Sequences {
  std::vector<std::uint8_t> query, query_reversed, target, target_reversed;
  // After query or target change, the reversals again.
  void reverse() {
    query_reversed.assign(query.rbegin(), query.rend());
    target_reversed.assign(target.rbegin(), target.rend());
  }
  align::SequencePair view() const {
    return {query.data(), query_reversed.data(), static_cast<std::int64_t>(query.size()),
            target.data(), target_reversed.data(), static_cast<std::int64_t>(target.size())};
  }
};

// A query of m random codes and a target of about n that is a mutated copy of it (10% substitutions, insertions and
// deletions), so that boxes hold long diagonals as well as gaps.
inline Sequences make_sequences(std::mt19937_64& rng, std::size_t m, std::size_t n, int alphabet) {
  Sequences s;
  s.query = random_codes(rng, m, alphabet);
  s.target = mutated_copy(rng, s.query, n, alphabet);
  s.reverse();
  return s;
}

}  // namespace cudp::test
