#pragma once
// What a caller may override of the device dispatch: the tier thresholds and the warp-tier shape that the
// architecture's tuning policy (engine/tuning.cuh) would otherwise choose, and the architecture itself. Plain C++, so
// that programs can build the options without nvcc; the library never reads them from the environment.
#include <optional>

namespace cudp::engine {

// The length ranges of the default tier list: targets up to `thread_max_length` go to the thread tier, up to
// `warp_max_length` to the warp tier, longer ones to the block tier. The values are tuning data, per architecture
// (engine/tuning/).
struct TierThresholds {
  int thread_max_length = 1024;  // targets up to this length: thread tier
  int warp_max_length = 16384;   // up to this: warp tier; longer: block tier
};

// A kernel shape: G threads per task (the group), R columns per thread; a query strip is G*R columns.
struct WarpShape {
  int group = 0, columns = 0;
  constexpr int strip() const { return group * columns; }
};
constexpr bool operator==(const WarpShape& a, const WarpShape& b) { return a.group == b.group && a.columns == b.columns; }
constexpr bool operator!=(const WarpShape& a, const WarpShape& b) { return !(a == b); }

struct DispatchOptions {
  // The tier boundaries; by default the tuning policy's for the architecture.
  std::optional<TierThresholds> thresholds;
  // Every query's warp tier in this shape, which must be in the lane's warp-tier menu; by default each query takes
  // the shape with the least estimated time for its length.
  std::optional<WarpShape> warp_shape;
  // The architecture whose tuning policy to use, as 100 * major + 10 * minor (900 for sm_90); 0: the current
  // device's compute capability.
  int sm_arch = 0;
};

}  // namespace cudp::engine
