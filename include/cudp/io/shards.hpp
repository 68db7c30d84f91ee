#pragma once
// A database cut into contiguous shards of about equal residues, one per process of a search spread over several
// (MPI ranks): each searches its shard, and the hits merge by their index in the whole database, so that ties
// across shards fall as they would in one process.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sequence_set.hpp"
#include "../tiers/residue_split.hpp"

namespace cudp::io {

// Where a shard lies in the whole database.
struct DatabasePart {
  std::size_t first = 0;       // the whole database's index of the shard's first sequence
  std::uint64_t sequences = 0;  // the whole database's sequences
  std::uint64_t residues = 0;   // and residues (E-values are of the whole)
};

// Sequences [first, last) of shard `shard` of `shards`, given the whole database's offsets (n + 1 of them): shard
// k starts at the first sequence that starts at or past k/shards of the residues (tiers/residue_split.hpp).
inline std::pair<std::size_t, std::size_t> shard_bounds(const std::vector<std::uint64_t>& offsets, int shard,
                                                        int shards) {
  return tiers::residue_split(offsets.data(), offsets.size() - 1, shard, shards);
}

// Sequences [first, last) of a database, copied (a shard, or a GPU's part of the database of one process).
inline SequenceSet copy_sequences(const SequenceSet& whole, std::size_t first, std::size_t last) {
  SequenceSet set;
  set.residues.assign(whole.residues.begin() + static_cast<std::ptrdiff_t>(whole.offsets[first]),
                      whole.residues.begin() + static_cast<std::ptrdiff_t>(whole.offsets[last]));
  set.offsets.assign(whole.offsets.begin() + static_cast<std::ptrdiff_t>(first),
                     whole.offsets.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  for (std::uint64_t& offset : set.offsets) offset -= whole.offsets[first];
  set.names.assign(whole.names.begin() + static_cast<std::ptrdiff_t>(first),
                   whole.names.begin() + static_cast<std::ptrdiff_t>(last));
  set.descriptions.assign(whole.descriptions.begin() + static_cast<std::ptrdiff_t>(first),
                          whole.descriptions.begin() + static_cast<std::ptrdiff_t>(last));
  return set;
}

// Shard `shard` of `shards` of a database held whole (a FASTA file, which every process reads), with `part`
// saying where it lies when given.
inline SequenceSet take_shard(SequenceSet&& whole, int shard, int shards, DatabasePart* part = nullptr) {
  const auto [first, last] = shard_bounds(whole.offsets, shard, shards);
  if (part != nullptr) *part = DatabasePart{first, whole.size(), whole.total_residues()};
  if (first == 0 && last == whole.size()) return std::move(whole);
  return copy_sequences(whole, first, last);
}

}  // namespace cudp::io
