#pragma once
// Work cut into contiguous runs of sequences of about equal residues: the shards of the processes of an MPI run
// (io/shards.hpp) and the parts of the GPUs of one process (engine/device_split.hpp). Cells are query length times
// residues, so equal residues are equal work for any query; each part's scorer sorts its own targets by length.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace cudp::host {

// Sequences [first, last) of part `part` of `parts`, given `count` sequences' offsets (count + 1 of them, from 0):
// part k starts at the first sequence that starts at or past k/parts of the residues, so every sequence falls in
// one part, parts hold about equal residues, and a part may be empty (more parts than sequences).
inline std::pair<std::size_t, std::size_t> residue_split(const std::uint64_t* offsets, std::size_t count, int part,
                                                         int parts) {
  if (parts < 1 || part < 0 || part >= parts)
    throw std::invalid_argument("part " + std::to_string(part) + " of " + std::to_string(parts));
  const std::uint64_t residues = offsets[count] - offsets[0];
  const auto start = [&](int k) -> std::size_t {
    if (k == 0) return 0;
    if (k == parts) return count;
    const std::uint64_t at = offsets[0] + residues / static_cast<std::uint64_t>(parts) * static_cast<std::uint64_t>(k) +
                             residues % static_cast<std::uint64_t>(parts) * static_cast<std::uint64_t>(k) /
                                 static_cast<std::uint64_t>(parts);
    return static_cast<std::size_t>(std::lower_bound(offsets, offsets + count, at) - offsets);
  };
  return {start(part), std::max(start(part), start(part + 1))};
}

}  // namespace cudp::host
