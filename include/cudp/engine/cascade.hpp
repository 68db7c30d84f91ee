#pragma once
// The overflow cascade, shared by every backend: targets a narrow lane cannot hold for certain go straight to the
// wide lane; the rest run narrow, and those whose narrow score says it may have wrapped are rescored wide.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../recurrences/shape.hpp"
#include "sequences.hpp"

namespace cudp::engine {

struct CascadeStats {
  std::uint64_t cells = 0;            // query length x residues, each pair counted once
  std::uint64_t narrow_targets = 0;
  std::uint64_t rescored_overflow = 0;  // ran narrow, overflowed, rescored wide
  std::uint64_t wide_only = 0;          // too long or too large for the narrow lane from the start

  // The counts above are the first, narrowest lane's. The host vector lanes take one step more (8 -> 16 -> 32
  // bits): what the 8-bit lanes handed on (rescored_overflow + wide_only) meets the 16-bit lanes, counted here the
  // same way; their rescored_overflow + wide_only is what reached 32 bits. All zero where the cascade has one step.
  struct Step {
    std::uint64_t narrow_targets = 0;
    std::uint64_t rescored_overflow = 0;
    std::uint64_t wide_only = 0;
  };
  Step second_step;

  CascadeStats& operator+=(const CascadeStats& other) {
    cells += other.cells;
    narrow_targets += other.narrow_targets;
    rescored_overflow += other.rescored_overflow;
    wide_only += other.wide_only;
    second_step.narrow_targets += other.second_step.narrow_targets;
    second_step.rescored_overflow += other.second_step.rescored_overflow;
    second_step.wide_only += other.second_step.wide_only;
    return *this;
  }
};

struct LanePlan {
  std::vector<std::uint32_t> narrow;  // database order
  std::vector<std::uint32_t> wide;
};

template <class NarrowPolicy>
LanePlan plan_lanes(const typename NarrowPolicy::Params& params, const recurrences::ProblemShape& shape,
                    const SequencesView& db) {
  LanePlan plan;
  plan.narrow.reserve(db.count);
  for (std::uint32_t t = 0; t < db.count; ++t)
    (NarrowPolicy::fits(params, shape, db.length(t)) ? plan.narrow : plan.wide).push_back(t);
  return plan;
}

// Targets longest first (ties in the given order): similar lengths share a task or a vector, and no worker is left
// with a long target at the end.
inline void sort_longest_first(const SequencesView& db, std::vector<std::uint32_t>& targets) {
  std::stable_sort(targets.begin(), targets.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return db.length(a) > db.length(b); });
}

// After the narrow pass over plan.narrow: every target to score in the wide lane (those planned wide, then the
// narrow ones whose scores may have wrapped), with the counts added to `stats`.
template <class NarrowPolicy>
std::vector<std::uint32_t> finish_cascade(const NarrowPolicy& p, LanePlan plan, const std::int32_t* scores,
                                          CascadeStats& stats) {
  stats.narrow_targets += plan.narrow.size();
  stats.wide_only += plan.wide.size();
  const std::size_t planned = plan.wide.size();
  for (std::uint32_t t : plan.narrow)
    if (p.overflowed(scores[t])) plan.wide.push_back(t);
  stats.rescored_overflow += plan.wide.size() - planned;
  return std::move(plan.wide);
}

template <class Scalar>
recurrences::ProblemShape shape_of(const std::vector<Scalar>& profile, int alphabet_size, int stride, int query_length) {
  recurrences::ProblemShape shape;
  shape.query_length = query_length;
  bool first = true;
  for (int a = 0; a < alphabet_size; ++a)
    for (int j = 0; j < query_length; ++j) {
      int v = static_cast<int>(profile[static_cast<std::size_t>(a) * stride + j]);
      shape.max_score = first ? v : std::max(shape.max_score, v);
      shape.min_score = first ? v : std::min(shape.min_score, v);
      first = false;
    }
  return shape;
}

}  // namespace cudp::engine
