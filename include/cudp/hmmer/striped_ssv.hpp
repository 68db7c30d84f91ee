#pragma once
// HMMER 3.3.2's SSV filter (p7_SSVFilter: the best single ungapped diagonal) as a striped row policy. Along each
// diagonal h = max(h + bias - cost(k, x_i), 0) is the score above B; the filter needs only the best h of the whole
// target, which no row-uniform state feeds back into: a row is one update per segment word and a running maximum,
// nothing crosses lanes but the diagonal shift. The engine turns the best h into p7_SSVFilter's answer
// (detail::ssv_from_best, with the length model), NoResult included, where p7_MSVFilter then runs the MSV DP.
// Lanes do the byte arithmetic as for MSV (ByteSaturation): a saturated top (or, in wider lanes, a wrap far above
// it) can only occur after the best h has passed the point where the answer is decided (ssv_decided_at), and the
// running maximum keeps that, so it never changes one.
#include <cstdint>

#include "../config.hpp"
#include "striped_msv.hpp"
#include "../recurrences/striped.hpp"

namespace cudp::hmmer {

template <class L>
struct Plan7Ssv {
  using Lane = L;
  using Word = typename L::word;
  using Bytes = ByteSaturation<L>;
  static constexpr const char* name = "ssv";

  struct Model {
    const Word* costs = nullptr;  // the MSV table: Kp rows of shape.words() words of stored costs, striped
    recurrences::StripedShape shape;
    int bias = 0;
  };
  template <class Seg>
  struct Columns {
    void resize(int) {}
    template <class Group>
    CUDP_HD void load(const Model&, const Group&) {}
  };
  template <class Seg>
  struct Cells {
    Seg h;
    void resize(int Q) { h.resize(Q); }
  };
  struct Specials {
    Word lane_best{};  // running maximum of this lane's h
  };
  struct Result {
    std::int32_t best = 0;
  };

  template <class Seg>
  CUDP_HD static void begin(const Model&, std::uint32_t, Cells<Seg>& c, Specials& s) {
    for (int q = 0; q < c.h.size(); ++q) c.h[q] = L::splat(0);
    s.lane_best = L::splat(0);
  }

  template <class Group, class Seg>
  CUDP_HD static void row(const Model& md, const Group& g, const Columns<Seg>&, Cells<Seg>& c, Specials& s, int code) {
    const Word* costs = md.shape.lane_words(md.costs, code, g.lane());
    const Word biasv = L::splat(md.bias);
    Word diagonal = g.template shift<L>(c.h[c.h.size() - 1], L::splat(0));
    Word best = s.lane_best;
    CUDP_UNROLL
    for (int q0 = 0; q0 < c.h.size(); q0 += 4) {
      Word stored[4], out[4];
      recurrences::load_four(costs, q0, c.h, stored);
      CUDP_UNROLL
      for (int j = 0; j < 4; ++j) {
        const int q = q0 + j;
        out[j] = L::splat(0);
        if (q >= c.h.size()) continue;
        out[j] = Bytes::cell(diagonal, stored[j], biasv);
        diagonal = c.h[q];
        c.h[q] = out[j];
      }
      best = L::max3(best, L::max3(out[0], out[1], out[2]), out[3]);
    }
    s.lane_best = best;
  }

  // Every target runs to its end: stopping once the answer is decided would need a vote per row, and decided
  // targets (strong hits) are rare.
  CUDP_HD static bool finished(const Specials&) { return false; }
  template <class Group>
  CUDP_HD static Result finish(const Model&, const Group& g, const Specials& s) {
    return {g.max(recurrences::horizontal_max<L>(s.lane_best))};
  }
};

}  // namespace cudp::hmmer
