#pragma once
// Chooses the tuning policy of the wavefront tiers at dispatch. Host code cannot know __CUDA_ARCH__, so the device's
// compute capability is read at run time and the newest policy not above it is taken from a list of tuned
// architectures, newest first (as CUB's chained policies). Kernels are instantiated for every policy of the list;
// policies that share their tier types share their kernels.
#include "cuda_check.cuh"
#include "tuning/generic.cuh"
#include "tuning/sm90.cuh"
#include "tuning/wavefront_tuning.hpp"

namespace cudp::engine {

// Architectures with a WavefrontTuning policy, newest first, ending with the generic default 0.
template <int... SmArchs>
struct ArchList {};
using TunedArchs = ArchList<900, 0>;

namespace detail {
template <int... A>
constexpr bool newest_first_ending_in_zero() {
  constexpr int archs[] = {A...};
  for (std::size_t k = 1; k < sizeof...(A); ++k)
    if (archs[k] >= archs[k - 1]) return false;
  return archs[sizeof...(A) - 1] == 0;
}
}  // namespace detail

// Calls f(WavefrontTuning<A, Lane>{}) for the first A of the list not above `sm_arch`.
template <class Lane, int... SmArchs, class F>
void with_tuning(ArchList<SmArchs...>, int sm_arch, F&& f) {
  static_assert(sizeof...(SmArchs) > 0 && detail::newest_first_ending_in_zero<SmArchs...>(),
                "an ArchList is newest first and ends with the generic default 0");
  bool done = false;
  ((!done && SmArchs <= sm_arch ? (done = true, static_cast<void>(f(WavefrontTuning<SmArchs, Lane>{})))
                                : static_cast<void>(0)),
   ...);
}

// The current device's compute capability as 100 * major + 10 * minor (900 for sm_90).
inline int device_sm_arch() {
  int device = 0, major = 0, minor = 0;
  CUDP_CUDA_CHECK(cudaGetDevice(&device));
  CUDP_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDP_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return 100 * major + 10 * minor;
}

// The tier thresholds the tuning gives lane `Lane` on architecture `sm_arch`.
template <class Lane, class Archs = TunedArchs>
TierThresholds tuned_thresholds(int sm_arch) {
  TierThresholds t;
  with_tuning<Lane>(Archs{}, sm_arch, [&](auto tuning) { t = decltype(tuning)::thresholds; });
  return t;
}

}  // namespace cudp::engine
