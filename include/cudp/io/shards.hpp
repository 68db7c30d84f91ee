#pragma once
// A database cut into contiguous shards of about equal residues, one per process of a search spread over several
// (MPI ranks): each searches its shard, and the hits merge by their index in the whole database, so that ties
// across shards fall as they would in one process.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sequence_set.hpp"
#include "../host/residue_split.hpp"

namespace cudp::io {

// Where a shard lies in the whole database.
struct DatabasePart {
  std::size_t first = 0;       // the whole database's index of the shard's first sequence
  std::uint64_t sequences = 0;  // the whole database's sequences
  std::uint64_t residues = 0;   // and residues (E-values are of the whole)
};

// Sequences [first, last) of shard `shard` of `shards`, given the whole database's offsets (n + 1 of them): shard
// k starts at the first sequence that starts at or past k/shards of the residues (host/residue_split.hpp).
inline std::pair<std::size_t, std::size_t> shard_bounds(const std::vector<std::uint64_t>& offsets, int shard,
                                                        int shards) {
  return host::residue_split(offsets.data(), offsets.size() - 1, shard, shards);
}

namespace detail {
// Sequences [first, last) of `whole`: its names and descriptions copied from a const set, moved from another.
template <class Whole>
SequenceSet sequences_between(Whole& whole, std::size_t first, std::size_t last) {
  SequenceSet set;
  set.residues.assign(whole.residues.begin() + static_cast<std::ptrdiff_t>(whole.offsets[first]),
                      whole.residues.begin() + static_cast<std::ptrdiff_t>(whole.offsets[last]));
  set.offsets.assign(whole.offsets.begin() + static_cast<std::ptrdiff_t>(first),
                     whole.offsets.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  for (std::uint64_t& offset : set.offsets) offset -= whole.offsets[first];
  const auto take = [&](auto& from, std::vector<std::string>& to) {
    const auto begin = from.begin() + static_cast<std::ptrdiff_t>(first);
    const auto end = from.begin() + static_cast<std::ptrdiff_t>(last);
    if constexpr (std::is_const_v<Whole>) to.assign(begin, end);
    else to.assign(std::make_move_iterator(begin), std::make_move_iterator(end));
  };
  take(whole.names, set.names);
  take(whole.descriptions, set.descriptions);
  return set;
}
}  // namespace detail

// Sequences [first, last) of a database, copied (a GPU's part of the database of one process).
inline SequenceSet copy_sequences(const SequenceSet& whole, std::size_t first, std::size_t last) {
  return detail::sequences_between(whole, first, last);
}

// Shard `shard` of `shards` of a database held whole (a FASTA file, which every process reads), with `part`
// saying where it lies when given.
inline SequenceSet take_shard(SequenceSet&& whole, int shard, int shards, DatabasePart* part = nullptr) {
  const auto [first, last] = shard_bounds(whole.offsets, shard, shards);
  if (part != nullptr) *part = DatabasePart{first, whole.size(), whole.total_residues()};
  if (first == 0 && last == whole.size()) return std::move(whole);
  return detail::sequences_between(whole, first, last);  // the names are moved out of `whole`
}

}  // namespace cudp::io
