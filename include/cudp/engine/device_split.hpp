#pragma once
// A database cut across several GPUs of one process: contiguous runs of targets of about equal residues
// (host/residue_split.hpp), so every GPU gets the same cells for any query and each part's scores are one run of
// the database's, written in place. A part views the database's residues where they lie and holds only its
// offsets, rebased to start at 0 as every scorer expects; each part's scorer sorts its targets by length itself.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../host/residue_split.hpp"
#include "sequences.hpp"

namespace cudp::engine {

// Targets [first, first + count) of a database, viewed.
struct DatabaseSlice {
  std::size_t first = 0;
  std::vector<std::uint64_t> offsets{0};  // rebased
  SequencesView view;
};

inline DatabaseSlice slice_of(const SequencesView& db, std::size_t first, std::size_t last) {
  DatabaseSlice slice;
  slice.first = first;
  const std::uint64_t base = db.count ? db.offsets[first] : 0;
  slice.offsets.resize(last - first + 1);
  for (std::size_t i = first; i <= last && db.count; ++i) slice.offsets[i - first] = db.offsets[i] - base;
  slice.view = {db.residues + base, slice.offsets.data(), last - first};
  return slice;
}

// The database in `parts` slices of about equal residues; a slice may be empty (more parts than targets).
inline std::vector<DatabaseSlice> split_by_residues(const SequencesView& db, int parts) {
  if (parts < 1) throw std::invalid_argument("a database is split into at least one part, got " + std::to_string(parts));
  std::vector<DatabaseSlice> slices;
  for (int p = 0; p < parts; ++p) {
    const auto [first, last] = db.count ? host::residue_split(db.offsets, db.count, p, parts)
                                        : std::pair<std::size_t, std::size_t>{0, 0};
    slices.push_back(slice_of(db, first, last));
  }
  return slices;
}

}  // namespace cudp::engine
