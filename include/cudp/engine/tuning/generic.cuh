#pragma once
// The default tuning of the wavefront tiers, for every architecture without a policy of its own (below sm_90 for
// now). Nothing has been measured on those: the shapes and shape speeds are sm_90's, the thresholds the untuned
// defaults of TierThresholds (targets up to 1024 residues on the thread tier, up to 16384 on the warp tier).
#include "sm90.cuh"
#include "wavefront_tuning.hpp"

namespace cudp::engine {

template <class Lane>
struct WavefrontTuning<0, Lane> : WavefrontTuning<900, Lane> {
  static constexpr TierThresholds thresholds{};
};

}  // namespace cudp::engine
