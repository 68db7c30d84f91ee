#pragma once
/// \file
/// Formatted results ranked within groups (a search's hits per query), merged across the processes of an MPI run: the
/// first process gets every group's best `top` in the order one process would have written them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kit/byte_records.hpp"
#include "kit/mpi_world.hpp"

namespace cudp::apps {

/// One result, formatted: its group, its score (higher first) and its place in the whole input (ties in input
/// order, so that the output is deterministic).
struct RankedRecord {
  std::uint64_t group = 0;  ///< the group (a query's index)
  std::int64_t score = 0;  ///< higher first
  std::uint64_t order = 0;  ///< the place in the whole input: ties in input order
  std::string text;  ///< the formatted record
};

/// Every process's records on the first, each group's best `top`, by group, score down, then order. A world of one
/// keeps its own, which must already be in that order.
inline std::vector<RankedRecord> merge_ranked(const MpiWorld& world, std::vector<RankedRecord> mine, std::size_t top) {
  if (world.size() == 1) return mine;
  std::string bytes;
  ByteWriter writer(bytes);
  for (const RankedRecord& r : mine) {
    writer.put(r.group);
    writer.put(r.score);
    writer.put(r.order);
    writer.put(r.text);
  }
  std::vector<RankedRecord> all;
  for (const std::string& part : world.gather(bytes)) {
    ByteReader reader(part);
    while (!reader.done()) {
      RankedRecord r;
      reader.get(r.group);
      reader.get(r.score);
      reader.get(r.order);
      reader.get(r.text);
      all.push_back(std::move(r));
    }
  }
  std::sort(all.begin(), all.end(), [](const RankedRecord& a, const RankedRecord& b) {
    return a.group != b.group ? a.group < b.group : a.score != b.score ? a.score > b.score : a.order < b.order;
  });
  std::vector<RankedRecord> kept;
  for (std::size_t i = 0, taken = 0; i < all.size(); ++i) {
    taken = i > 0 && all[i].group == all[i - 1].group ? taken + 1 : 0;
    if (taken < top) kept.push_back(std::move(all[i]));
  }
  return kept;
}

}  // namespace cudp::apps
