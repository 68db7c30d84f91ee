#pragma once
// Tuning of the wavefront tiers for sm_90 (Hopper: H100, H200), and for later architectures until they have a
// policy of their own. Every figure comes from a bench/ run on that hardware; bench/RESULTS.md has the runs.
#include "../../lanes/h16x2.hpp"
#include "../../lanes/s16x2.hpp"
#include "../../lanes/s32.hpp"
#include "../../tiers/block.cuh"
#include "../../tiers/thread.cuh"
#include "../../tiers/warp.cuh"
#include "../tier_list.hpp"
#include "wavefront_tuning.hpp"

namespace cudp::engine {

struct Sm90Thresholds {
  // H200, 570k-target Swiss-Prot-like ladder (bench/RESULTS.md, 2026-11-21): everything on the warp tier ran
  // at 2.77 TCUPS against 0.80 with targets up to 1024 on the thread tier and 0.51 all on the thread tier,
  // whose strip carries through global memory every 16 columns cost more than the warp's ramp-up.
  static constexpr TierThresholds thresholds{0, 16384};
};

// Lanes without measured shapes: one shape per tier.
template <class Lane>
struct WavefrontTuning<900, Lane> : Sm90Thresholds {
  using Tiers = TierList<TierRange<&TierThresholds::thread_max_length, tiers::ThreadTier<16, 128>>,
                         TierRange<&TierThresholds::warp_max_length, tiers::WarpTier<32, 16, 128>>,
                         TierRange<kNoLengthBound, tiers::BlockTier<8, 256>>>;
  static double padded_gcups(const WarpShape&) { return 1; }  // one shape per tier: nothing to choose
};

// The default lane: strips from 96 to 512 columns, several of them per query where that pads less. Per padded cell
// the shapes run within 10% of each other (3990-4400 GCUPS), so the menu is the 7 that give the best predicted time
// over the benchmark ladder (bench/RESULTS.md, 2026-11-21, H100 with longest tasks first).
template <>
struct WavefrontTuning<900, lanes::s16x2> : Sm90Thresholds {
  using Tiers = TierList<TierRange<&TierThresholds::thread_max_length, tiers::ThreadTier<16, 128>>,
                         TierRange<&TierThresholds::warp_max_length, tiers::WarpTier<4, 24, 128>, tiers::WarpTier<4, 40, 128>,
                                   tiers::WarpTier<4, 48, 128>, tiers::WarpTier<8, 32, 128>, tiers::WarpTier<8, 40, 128>,
                                   tiers::WarpTier<8, 48, 128>, tiers::WarpTier<8, 64, 128>>,
                         TierRange<kNoLengthBound, tiers::BlockTier<8, 256>>>;

  // Cells per second of a warp shape counted over its padded strips (the query rounded up to whole strips), which
  // bench/ found independent of the query length: sm_90, s16x2 local Gotoh, NVIDIA H100, the 20-query ladder forced
  // into each shape, blocks taking the longest tasks first (bench/RESULTS.md, 2026-11-21, the H100 shape sweep).
  static double padded_gcups(const WarpShape& s) {
    static constexpr ShapeSpeed measured[] = {
        {4, 24, 3986},  {4, 32, 4248},  {4, 40, 4019},  {4, 48, 4292},  {4, 56, 3858},  {8, 24, 4031},
        {8, 32, 4288},  {8, 40, 4171},  {8, 48, 4396},  {8, 56, 4133},  {8, 64, 4337},  {16, 24, 3959},
        {16, 32, 4208}, {16, 40, 4089}, {16, 48, 4310}, {16, 56, 4043}, {16, 64, 4238}, {32, 32, 4023}};
    return speed_of(measured, s, 3900);  // an unmeasured shape: about the slowest measured
  }
};

// Half lanes pack like s16x2 (two 16-bit lanes, the same profile layout): the same shapes, so that the two compare
// kernel for kernel.
template <>
struct WavefrontTuning<900, lanes::h16x2> : WavefrontTuning<900, lanes::s16x2> {};

// The exact lane: the narrow pass when s32 is the narrow lane, and the overflow cascade's rescoring.
template <>
struct WavefrontTuning<900, lanes::s32> : Sm90Thresholds {
  using Tiers = TierList<TierRange<&TierThresholds::thread_max_length, tiers::ThreadTier<8, 128>>,
                         TierRange<&TierThresholds::warp_max_length, tiers::WarpTier<32, 8, 128>>,
                         TierRange<kNoLengthBound, tiers::BlockTier<4, 256>>>;
  static double padded_gcups(const WarpShape&) { return 1; }  // one shape per tier: nothing to choose
  // The cascade's targets come one per task, in any length order: a whole warp per target.
  using Rescore = tiers::WarpTier<32, 8, 128>;
};

}  // namespace cudp::engine
