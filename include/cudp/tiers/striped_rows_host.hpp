#pragma once
// The host backend of the striped-rows tier: the same policy code with a group of one lane holding every segment
// (StripedShape{1, Q, width}), targets spread over host threads.
#include <cstdint>
#include <vector>

#include "../recurrences/concepts.hpp"
#include "../recurrences/striped.hpp"
#include "../host/parallel_for.hpp"
#include "striped_targets.hpp"

namespace cudp::tiers {

struct SoloStripedGroup {
  static constexpr int size = 1;
  int lane() const { return 0; }
  template <class L>
  typename L::word shift(typename L::word w, typename L::word fill) const {
    return recurrences::shift_in<L>(w, fill);
  }
  int max(int v) const { return v; }
  float sum(float v) const { return v; }
  template <class T>
  T up(T v, int) const {
    return v;
  }
  bool any(bool p) const { return p; }
};

// One target at a time, in a worker's scratch: the per-target part of the tier, apart so that a caller compiled for
// a vector instruction set can absorb it whole (tiers/striped_rows_vector-inl.hpp).
template <class Policy>
struct StripedHostRun {
  using Seg = recurrences::DynamicSegments<typename Policy::Word>;
  struct Scratch {
    typename Policy::template Columns<Seg> columns;
    typename Policy::template Cells<Seg> cells;
  };

  static Scratch scratch(const typename Policy::Model& md) {
    const SoloStripedGroup g;
    Scratch s;
    s.columns.resize(md.shape.segments);
    s.columns.load(md, g);
    s.cells.resize(md.shape.segments);
    return s;
  }

  static typename Policy::Result one(const typename Policy::Model& md, Scratch& s, const StripedTargets& targets,
                                     std::size_t n) {
    const SoloStripedGroup g;
    const std::uint32_t id = targets.ids[n];
    const auto length = static_cast<std::uint32_t>(targets.offsets[id + 1] - targets.offsets[id]);
    const std::uint8_t* codes = targets.residues + targets.offsets[id];
    typename Policy::Specials specials;
    Policy::begin(md, length, s.cells, specials);
    for (std::uint32_t i = 0; i < length; ++i) {
      Policy::row(md, g, s.columns, s.cells, specials, codes[i]);
      if (Policy::finished(specials)) break;
    }
    return Policy::finish(md, g, specials);
  }
};

// One result per target, in the targets' order; the model's shape must have group 1. `run` does the work per
// worker and per target (StripedHostRun's interface).
template <class Policy, class Run = StripedHostRun<Policy>>
std::vector<typename Policy::Result> striped_rows_on_host(const typename Policy::Model& md,
                                                          const StripedTargets& targets, int threads,
                                                          const Run& run = {}) {
  static_assert(recurrences::check_striped_row_policy<Policy>());
  std::vector<typename Policy::Result> results(targets.count);
  host::parallel_for(
      targets.count, threads, [&] { return run.scratch(md); },
      [&](auto& scratch, std::size_t n) { results[n] = run.one(md, scratch, targets, n); });
  return results;
}

}  // namespace cudp::tiers
