#pragma once
// A database dealt out to several GPUs of one process. Targets go longest first, each to the part holding the fewest
// residues so far (ties to the lower part): every part gets about the same residues, hence the same cells for any
// query, and about the same mix of lengths, hence the same tiers busy. Each part keeps its targets in database order
// and a copy of their residues, since a GPU's scorer reads its database from the host while it uploads or streams.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sequences.hpp"

namespace cudp::engine {

// Some targets of a database, copied: target i of the subset is `targets[i]` of the whole.
struct TargetSubset {
  std::vector<std::uint32_t> targets;  // ascending
  std::vector<std::uint8_t> residues;
  std::vector<std::uint64_t> offsets{0};

  std::size_t size() const { return targets.size(); }
  SequencesView view() const { return {residues.data(), offsets.data(), targets.size()}; }
};

// Which targets go to which of `parts` parts (each list ascending); a part may be empty when there are fewer
// targets than parts.
inline std::vector<std::vector<std::uint32_t>> deal_longest_first(const SequencesView& db, int parts) {
  if (parts < 1) throw std::invalid_argument("a database is dealt to at least one part, got " + std::to_string(parts));
  std::vector<std::uint32_t> order(db.count);
  for (std::uint32_t t = 0; t < db.count; ++t) order[t] = t;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return db.length(a) > db.length(b); });
  using Load = std::pair<std::uint64_t, int>;  // (residues so far, part): the smallest on top
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> loads;
  for (int p = 0; p < parts; ++p) loads.push({0, p});
  std::vector<std::vector<std::uint32_t>> dealt(static_cast<std::size_t>(parts));
  for (const std::uint32_t t : order) {
    auto [residues, p] = loads.top();
    loads.pop();
    dealt[static_cast<std::size_t>(p)].push_back(t);
    loads.push({residues + db.length(t), p});
  }
  for (auto& list : dealt) std::sort(list.begin(), list.end());
  return dealt;
}

// The residues of `targets` appended to any set of sequences laid end to end (`residues`, and `offsets` ending
// where they end): io::SequenceSet, TargetSubset.
template <class Set>
void append_targets(const SequencesView& db, const std::vector<std::uint32_t>& targets, Set& set) {
  std::uint64_t residues = set.residues.size();
  for (const std::uint32_t t : targets) residues += db.length(t);
  set.residues.reserve(residues);
  set.offsets.reserve(set.offsets.size() + targets.size());
  for (const std::uint32_t t : targets) {
    set.residues.insert(set.residues.end(), db.data(t), db.data(t) + db.length(t));
    set.offsets.push_back(set.residues.size());
  }
}

inline TargetSubset gather_targets(const SequencesView& db, std::vector<std::uint32_t> targets) {
  TargetSubset subset;
  append_targets(db, targets, subset);
  subset.targets = std::move(targets);
  return subset;
}

}  // namespace cudp::engine
