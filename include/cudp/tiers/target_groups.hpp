#pragma once
// Targets taken W at a time, one per lane of a CPU vector, and read where they lie: the host vector tier gathers a
// band's residues from the sequences themselves, which costs less than packing a copy of the database per query
// (a scatter of every residue with a stride of W bytes).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "task_list.hpp"

namespace cudp::tiers {

struct TargetGroupsView {
  const std::uint8_t* residues = nullptr;  // sequence s: residues[offsets[s] .. offsets[s + 1])
  const std::uint64_t* offsets = nullptr;
  const std::uint32_t* targets = nullptr;  // group g, lane k: targets[g * width + k], kNoTarget for an empty lane
  const std::int32_t* lengths = nullptr;   // of those targets, 0 for an empty lane
  const std::int32_t* rows = nullptr;      // per group: its longest target
  int width = 0;
  int count = 0;
};

struct TargetGroups {
  std::vector<std::uint32_t> targets;
  std::vector<std::int32_t> lengths, rows;
  int width = 0;

  // Groups of `width` consecutive entries of order[0..n), sequences given as residues and offsets.
  static TargetGroups of(const std::uint64_t* offsets, const std::uint32_t* order, std::size_t n, int width) {
    TargetGroups g;
    g.width = width;
    const std::size_t groups = (n + width - 1) / width;
    g.targets.assign(groups * width, kNoTarget);
    g.lengths.assign(groups * width, 0);
    g.rows.assign(groups, 0);
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint32_t t = order[k];
      const auto length = static_cast<std::int32_t>(offsets[t + 1] - offsets[t]);
      g.targets[k] = t;
      g.lengths[k] = length;
      g.rows[k / width] = std::max(g.rows[k / width], length);
    }
    return g;
  }

  TargetGroupsView view(const std::uint8_t* residues, const std::uint64_t* offsets) const {
    return {residues, offsets, targets.data(), lengths.data(), rows.data(), width, static_cast<int>(rows.size())};
  }
};

}  // namespace cudp::tiers
