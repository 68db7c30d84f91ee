#pragma once
// HMMER 3.3.2's MSV filter (p7_MSVFilter's DP: local multihit, match states only) as a striped row policy, with
// the same saturating byte arithmetic, so that scores are bit-identical to HMMER's. Scores are unsigned bytes
// ("costs" biased so that 0 is -infinity and `base` is a score of 0):
//   M(i,k) = subs(adds(max(M(i-1,k-1), xB), bias), cost(k, x_i))       M(i-1,0) = 0
//   xE = max_k M(i,k); +infinity (Overflow, the target passes) as soon as adds(xE, bias) reaches 255
//   xJ = max(xJ, subs(xE, tEC));  xB = subs(max(base, xJ), tJB + tBM)
// The lane decides how the byte saturation is done (ByteSaturation): natively in u8x4, or in s16x2 with one DPX
// add-min (clamp at 255) and one add-max (clamp at 0), exact because no value leaves 0..510 before clamping.
// One row: a shift for the diagonal of segment 0, one update per segment word, a group maximum for xE.
#include <cstdint>

#include "../config.hpp"
#include "../lanes/s16x2.hpp"
#include "../lanes/u8x4.hpp"
#include "striped.hpp"

namespace cudp::recurrences {

template <class L>
struct ByteSaturation;

template <>
struct ByteSaturation<lanes::u8x4> {
  using L = lanes::u8x4;
  static int stored_cost(int cost) { return cost; }
  CUDP_HD static L::word add_bias(L::word a, L::word bias) { return L::adds(a, bias); }
  CUDP_HD static L::word take_cost(L::word a, L::word stored) { return L::subs(a, stored); }
};

template <>
struct ByteSaturation<lanes::s16x2> {
  using L = lanes::s16x2;
  static int stored_cost(int cost) { return -cost; }
  CUDP_HD static L::word add_bias(L::word a, L::word bias) { return L::add_min(a, bias, L::splat(255)); }
  CUDP_HD static L::word take_cost(L::word a, L::word stored) { return L::add_max(a, stored, 0u); }
};

template <class L>
struct Plan7Msv {
  using Lane = L;
  using Word = typename L::word;
  using Bytes = ByteSaturation<L>;
  static constexpr const char* name = "msv";

  struct Model {
    const Word* costs = nullptr;                      // Kp rows of shape.words() words: stored costs, striped
    const std::uint8_t* move_cost_by_length = nullptr;  // tJB for a target of length L (HMMER's length model)
    StripedShape shape;
    int bias = 0, base = 190, entry_cost = 0, end_cost = 0;
  };
  template <class Seg>
  struct Columns {  // nothing per node but the emission costs, which depend on the residue
    void resize(int) {}
    template <class Group>
    CUDP_HD void load(const Model&, const Group&) {}
  };
  template <class Seg>
  struct Cells {
    Seg m;
    void resize(int Q) { m.resize(Q); }
  };
  struct Specials {
    int xJ = 0, xB = 0, begin_cost = 0;
    bool overflow = false;
  };
  struct Result {
    StripedStatus status = StripedStatus::Ok;
    std::int32_t xJ = 0;  // the host turns it into nats with the target's length model
  };

  template <class Seg>
  CUDP_HD static void begin(const Model& md, std::uint32_t length, Cells<Seg>& c, Specials& s) {
    for (int q = 0; q < c.m.size(); ++q) c.m[q] = L::splat(0);
    // HMMER adds tJB and tBM as int8 casts: the sum wraps modulo 256.
    s.begin_cost = (md.move_cost_by_length[length] + md.entry_cost) & 0xFF;
    s.xJ = 0;
    s.xB = md.base - s.begin_cost > 0 ? md.base - s.begin_cost : 0;
    s.overflow = false;
  }

  template <class Group, class Seg>
  CUDP_HD static void row(const Model& md, const Group& g, const Columns<Seg>&, Cells<Seg>& c, Specials& s, int code) {
    const Word* costs = md.costs + static_cast<std::size_t>(code) * md.shape.words() + g.lane();
    const Word xBv = L::splat(s.xB), biasv = L::splat(md.bias);
    Word diagonal = g.template shift<L>(c.m[c.m.size() - 1], L::splat(0));
    Word xEv = L::splat(0);
    CUDP_UNROLL
    for (int q = 0; q < c.m.size(); ++q) {
      const Word sv = Bytes::take_cost(Bytes::add_bias(L::max(diagonal, xBv), biasv), costs[q * md.shape.group]);
      xEv = L::max(xEv, sv);
      diagonal = c.m[q];
      c.m[q] = sv;
    }
    const int xE = g.max(horizontal_max<L>(xEv));
    if (xE + md.bias >= 255) s.overflow = true;
    const int from_e = xE - md.end_cost > 0 ? xE - md.end_cost : 0;
    s.xJ = s.xJ > from_e ? s.xJ : from_e;
    const int from_b = (md.base > s.xJ ? md.base : s.xJ) - s.begin_cost;
    s.xB = from_b > 0 ? from_b : 0;
  }

  CUDP_HD static bool finished(const Specials& s) { return s.overflow; }
  CUDP_HD static Result finish(const Specials& s) {
    return {s.overflow ? StripedStatus::Overflow : StripedStatus::Ok, s.xJ};
  }
};

}  // namespace cudp::recurrences
