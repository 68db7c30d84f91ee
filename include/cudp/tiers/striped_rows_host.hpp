#pragma once
// The host backend of the striped-rows tier: the same policy code with a group of one lane holding every segment
// (StripedShape{1, Q, width}), targets spread over host threads.
#include <cstdint>
#include <vector>

#include "../recurrences/concepts.hpp"
#include "../recurrences/striped.hpp"
#include "parallel_for.hpp"
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

// One result per target, in the targets' order; the model's shape must have group 1.
template <class Policy>
std::vector<typename Policy::Result> striped_rows_on_host(const typename Policy::Model& md,
                                                          const StripedTargets& targets, int threads) {
  static_assert(recurrences::check_striped_row_policy<Policy>());
  using Seg = recurrences::DynamicSegments<typename Policy::Word>;
  std::vector<typename Policy::Result> results(targets.count);
  const SoloStripedGroup g;
  const int Q = md.shape.segments;
  struct Scratch {
    typename Policy::template Columns<Seg> columns;
    typename Policy::template Cells<Seg> cells;
  };
  parallel_for(
      targets.count, threads,
      [&] {
        Scratch s;
        s.columns.resize(Q);
        s.columns.load(md, g);
        s.cells.resize(Q);
        return s;
      },
      [&](Scratch& s, std::size_t n) {
        const std::uint32_t id = targets.ids[n];
        const auto length = static_cast<std::uint32_t>(targets.offsets[id + 1] - targets.offsets[id]);
        const std::uint8_t* codes = targets.residues + targets.offsets[id];
        typename Policy::Specials specials;
        Policy::begin(md, length, s.cells, specials);
        for (std::uint32_t i = 0; i < length; ++i) {
          Policy::row(md, g, s.columns, s.cells, specials, codes[i]);
          if (Policy::finished(specials)) break;
        }
        results[n] = Policy::finish(md, g, specials);
      });
  return results;
}

}  // namespace cudp::tiers
