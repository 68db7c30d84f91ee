#pragma once
// HMMER 3.3.2's MSV filter (p7_MSVFilter's DP: local multihit, match states only) as a striped row policy, with
// the same saturating byte arithmetic, so that scores are bit-identical to HMMER's. Scores are unsigned bytes
// ("costs" biased so that 0 is -infinity and `base` is a score of 0):
//   M(i,k) = subs(adds(max(M(i-1,k-1), xB), bias), cost(k, x_i))       M(i-1,0) = 0
//   xE = max_k M(i,k); +infinity (Overflow, the target passes) as soon as adds(xE, bias) reaches 255
//   xJ = max(xJ, subs(xE, tEC));  xB = subs(max(base, xJ), tJB + tBM)
// The lane decides how the byte saturation is done (ByteSaturation): natively in u8x4, or in s16x2 with one DPX
// add-min (clamp at 255) and one add-max (clamp at 0), exact because no value leaves 0..510 before clamping.
// One row: a shift for the diagonal of segment 0, one update per segment word, and a vote.
#include <cstdint>

#include "../config.hpp"
#include "../recurrences/striped.hpp"

namespace cudp::hmmer {

// One MSV cell, M = subs(adds(from, bias), cost), as a lane can do it exactly. Byte lanes (u8x4, u8x16) follow
// HMMER's two byte saturations. Wider lanes store bias - cost and take max(from + (bias - cost), 0): the top
// saturation never binds, because from <= max(previous xE, xB), the row that brought xE to 255 - bias stopped the
// sweep (overflow), and xB + bias <= base + bias <= 255 (the engine checks that last condition per model; see
// wide_lanes_exact).
template <class L>
struct ByteSaturation {
  static constexpr bool bytes = L::bits == 8;
  static int stored_cost(int cost, int bias) { return bytes ? cost : bias - cost; }
  CUDP_HD static typename L::word cell(typename L::word from, typename L::word stored, typename L::word bias) {
    if constexpr (bytes) {
      return L::subs(L::adds(from, bias), stored);
    } else {
      return L::add_max(from, stored, L::splat(0));
    }
  }
};

template <class L>
struct Plan7Msv {
  using Lane = L;
  using Word = typename L::word;
  using Bytes = ByteSaturation<L>;
  static constexpr const char* name = "msv";

  // Whether lane L gives HMMER's bytes for this model (u8x4 always; wider lanes while base + bias <= 255).
  static bool wide_lanes_exact(int base, int bias) { return L::bits == 8 || base + bias <= 255; }

  struct Model {
    const Word* costs = nullptr;                      // Kp rows of shape.words() words: stored costs, striped
    const std::uint8_t* move_cost_by_length = nullptr;  // tJB for a target of length L (HMMER's length model)
    recurrences::StripedShape shape;
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
    int lane_best_e = 0;  // this lane's largest row maximum so far; the group's gives the final xJ
    bool overflow = false;
  };
  struct Result {
    recurrences::StripedStatus status = recurrences::StripedStatus::Ok;
    std::int32_t xJ = 0;  // the host turns it into nats with the target's length model
  };

  template <class Seg>
  CUDP_HD static void begin(const Model& md, std::uint32_t length, Cells<Seg>& c, Specials& s) {
    for (int q = 0; q < c.m.size(); ++q) c.m[q] = L::splat(0);
    // HMMER adds tJB and tBM as int8 casts: the sum wraps modulo 256.
    s.begin_cost = (md.move_cost_by_length[length] + md.entry_cost) & 0xFF;
    s.xJ = 0;
    s.xB = md.base - s.begin_cost > 0 ? md.base - s.begin_cost : 0;
    s.lane_best_e = 0;
    s.overflow = false;
  }

  // xJ = max over rows of subs(xE, tEC) needs no per-row reduction: B moves only when a row's xE - tEC passes
  // max(base, xJ), and overflow only when xE + bias reaches 255; a vote finds those rows, the others leave B as
  // it is and enter xJ through the lanes' running maxima at the end.
  template <class Group, class Seg>
  CUDP_HD static void row(const Model& md, const Group& g, const Columns<Seg>&, Cells<Seg>& c, Specials& s, int code) {
    const Word* costs = md.shape.lane_words(md.costs, code, g.lane());
    const Word xBv = L::splat(s.xB), biasv = L::splat(md.bias);
    Word diagonal = g.template shift<L>(c.m[c.m.size() - 1], L::splat(0));
    Word xEv = L::splat(0);
    CUDP_UNROLL
    for (int q0 = 0; q0 < c.m.size(); q0 += 4) {
      Word stored[4], out[4];
      recurrences::load_four(costs, q0, c.m, stored);
      CUDP_UNROLL
      for (int j = 0; j < 4; ++j) {
        const int q = q0 + j;
        out[j] = L::splat(0);
        if (q >= c.m.size()) continue;
        out[j] = Bytes::cell(L::max(diagonal, xBv), stored[j], biasv);
        diagonal = c.m[q];
        c.m[q] = out[j];
      }
      xEv = L::max3(xEv, L::max3(out[0], out[1], out[2]), out[3]);  // one link per quad in the xE chain
    }
    const int lane_e = recurrences::horizontal_max<L>(xEv);
    s.lane_best_e = s.lane_best_e > lane_e ? s.lane_best_e : lane_e;
    const int moves_b = (md.base > s.xJ ? md.base : s.xJ) + md.end_cost;
    if (!g.any(lane_e > moves_b || lane_e + md.bias >= 255)) return;
    const int xE = g.max(lane_e);
    if (xE + md.bias >= 255) s.overflow = true;
    const int from_e = xE - md.end_cost > 0 ? xE - md.end_cost : 0;
    s.xJ = s.xJ > from_e ? s.xJ : from_e;
    const int from_b = (md.base > s.xJ ? md.base : s.xJ) - s.begin_cost;
    s.xB = from_b > 0 ? from_b : 0;
  }

  CUDP_HD static bool finished(const Specials& s) { return s.overflow; }
  template <class Group>
  CUDP_HD static Result finish(const Model& md, const Group& g, const Specials& s) {
    const int best_e = g.max(s.lane_best_e);
    const int xJ = best_e - md.end_cost > s.xJ ? best_e - md.end_cost : s.xJ;
    return {s.overflow ? recurrences::StripedStatus::Overflow : recurrences::StripedStatus::Ok, xJ};
  }
};

}  // namespace cudp::hmmer
