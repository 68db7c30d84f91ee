#pragma once
// The tuning policy of the wavefront tiers for one architecture and one lane type, in the manner of CUB's tuning
// policies: tuning data only, kept apart from the algorithms. `WavefrontTuning<SmArch, Lane>` (SmArch = 100 * major
// + 10 * minor, 0 for the generic default) provides
//
//   static constexpr TierThresholds thresholds;       the length ranges of the tiers
//   using Tiers = TierList<TierRange<...>, ...>;       the tiers, in length order, each with its shapes (tier_list.hpp)
//   static double padded_gcups(const WarpShape&);      measured speed per padded cell, to choose a shape per query
//   using Rescore = tiers::WarpTier<...>;              (s32 only) the tier of the overflow cascade's rescoring
//
// The policies live in engine/tuning/sm90.cuh (measured on Hopper) and engine/tuning/generic.cuh (any other
// architecture); engine/tuning.cuh picks one from the device's compute capability at dispatch.
#include "../tier_list.hpp"

namespace cudp::engine {

template <int SmArch, class Lane>
struct WavefrontTuning;

// A measured speed of one shape, and the lookup of a shape in a table of them.
struct ShapeSpeed {
  int group, columns;
  double gcups;
};
template <std::size_t N>
double speed_of(const ShapeSpeed (&table)[N], const WarpShape& s, double unmeasured) {
  for (const ShapeSpeed& e : table)
    if (e.group == s.group && e.columns == s.columns) return e.gcups;
  return unmeasured;
}

}  // namespace cudp::engine
