#pragma once
// The state counts built. The pruning policy fixes its state count at compile time, so each count is a build of
// its own: those MrBayes can ask for (restriction sites 2, DNA 4, DNA covarion 8, doublets 16, protein 20, protein
// covarion 40, codons 60-64 depending on the genetic code). The GPU builds fewer: nvcc takes minutes per count.
#include <memory>
#include <vector>

#include "backend.hpp"

namespace cudp_beagle {

template <int... N>
struct StateList {
  static std::vector<int> values() { return {N...}; }
};

using HostStates = StateList<2, 4, 8, 16, 20, 40, 60, 61, 62, 63, 64>;
using DeviceStates = StateList<2, 4, 8, 16, 20, 40, 61>;

// Backend<Real, states> for the run-time state count, or nullptr when the list does not have it.
template <template <class, int> class B, class Real, int... N, class... Args>
std::unique_ptr<Backend> make_backend(StateList<N...>, int states, const Args&... args) {
  std::unique_ptr<Backend> out;
  (void)((states == N ? (out = std::make_unique<B<Real, N>>(args...), true) : false) || ...);
  return out;
}

}  // namespace cudp_beagle
