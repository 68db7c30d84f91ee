#pragma once
// The Plan7 Forward score (HMMER's p7_ForwardParser: all paths summed, local multihit) as a striped row policy in
// float probability space, for filtering: a target's Forward score decides HMMER's F3 stage. Values are odds
// (probability ratios against the null model):
//   M(i,k) = msc(k, x_i) * (xB tBM(k) + M(i-1,k-1) tMM + I(i-1,k-1) tIM + D(i-1,k-1) tDM)
//   I(i,k) = M(i-1,k) tMI + I(i-1,k) tII                    (insert odds 1)
//   D(i,k) = M(i,k-1) tMD + D(i,k-1) tDD                    (every D->D chain, no Lazy-F)
//   xE = sum_k M(i,k) + D(i,k);  N, J, C, B as HMMER, with its length model; score = log(xC tCT) + scaling.
// Rows whose xE passes 1e4 are rescaled by 1/xE (HMMER's sparse rescaling) and the log of the scale is kept.
// The sums run in another order than HMMER's SIMD code, so scores agree to float rounding (about 1e-5 relative),
// not bit for bit: a filter built on this one must leave a margin and let the host decide close calls.
//
// D along a row is a linear recurrence D(k) = a(k) + b(k) D(k-1): each lane folds its own run of nodes into one
// affine map, the group scans the maps (log2 G shuffles), and each lane then replays its run from the right start.
#include <cmath>
#include <cstdint>

#include "../config.hpp"
#include "../lanes/f32.hpp"
#include "../recurrences/striped.hpp"

namespace cudp::hmmer {

// a * b + c: fused on the device; on the host a plain multiply-add, since without FMA hardware flags fmaf is a
// library call (the results are the same to float rounding, which is all Forward promises).
CUDP_HD float multiply_add(float a, float b, float c) {
#if CUDP_DEVICE_PASS
  return fmaf(a, b, c);
#else
  return a * b + c;
#endif
}

enum class ForwardTransition : int { Entry = 0, MM, IM, DM, MD, DD, MI, II, Count };

struct Plan7Forward {
  using Lane = lanes::f32;
  using Word = float;
  static constexpr const char* name = "forward";
  static constexpr float rescale_above = 1.0e4f;

  struct Model {
    const float* match = nullptr;        // Kp rows of shape.words(): match emission odds, striped
    const float* transitions = nullptr;  // ForwardTransition::Count rows; MM, IM, DM from node k-1 sit at node k
    recurrences::StripedShape shape;
    float expected_j_uses = 1.0f;  // 1 multihit, 0 unihit
    float e_loop = 0.5f, e_move = 0.5f;
  };

  template <class Seg>
  using Columns = recurrences::TransitionColumns<float, Seg, ForwardTransition, 24>;
  template <class Seg>
  using Cells = recurrences::MatchInsertDelete<Seg>;
  struct Specials {
    float xN = 1, xB = 0, xJ = 0, xC = 0;
    float loop = 0, move = 0;  // N, J, C self-loop and move for this target's length
    float log_scale = 0;
  };
  struct Result {
    float nats = 0;
  };

  template <class Seg>
  CUDP_HD static void begin(const Model& md, std::uint32_t length, Cells<Seg>& c, Specials& s) {
    for (int q = 0; q < c.m.size(); ++q) c.m[q] = c.ins[q] = c.d[q] = 0.0f;
    // p7_ReconfigLength in float: move = (2 + nJ) / (L + 2 + nJ).
    s.move = (2.0f + md.expected_j_uses) / (static_cast<float>(length) + 2.0f + md.expected_j_uses);
    s.loop = 1.0f - s.move;
    s.xN = 1.0f;
    s.xJ = s.xC = 0.0f;
    s.xB = s.xN * s.move;
    s.log_scale = 0.0f;
  }

  template <class Group, class Seg>
  CUDP_HD static void row(const Model& md, const Group& g, const Columns<Seg>& tr, Cells<Seg>& c, Specials& s,
                          int code) {
    using T = ForwardTransition;
    const int last = c.m.size() - 1;
    float mpv = g.template shift<Lane>(c.m[last], 0.0f);
    float ipv = g.template shift<Lane>(c.ins[last], 0.0f);
    float dpv = g.template shift<Lane>(c.d[last], 0.0f);
    const float* msc = md.shape.lane_words(md.match, code, g.lane());
    float lane_e = 0.0f, dcv = 0.0f;
    CUDP_UNROLL
    for (int q0 = 0; q0 < c.m.size(); q0 += 4) {
      float odds[4], entry[4], mm[4], im[4], dm[4], to_d[4], mi[4], ii[4];
      recurrences::load_four(msc, q0, c.m, odds);
      tr.quad(T::Entry, q0, c.m, entry);
      tr.quad(T::MM, q0, c.m, mm);
      tr.quad(T::IM, q0, c.m, im);
      tr.quad(T::DM, q0, c.m, dm);
      tr.quad(T::MD, q0, c.m, to_d);
      tr.quad(T::MI, q0, c.m, mi);
      tr.quad(T::II, q0, c.m, ii);
      CUDP_UNROLL
      for (int j = 0; j < 4; ++j) {
        const int q = q0 + j;
        if (q >= c.m.size()) break;
        float sv = s.xB * entry[j];
        sv = multiply_add(mpv, mm[j], sv);
        sv = multiply_add(ipv, im[j], sv);
        sv = multiply_add(dpv, dm[j], sv);
        sv *= odds[j];
        lane_e += sv;
        mpv = c.m[q];
        ipv = c.ins[q];
        dpv = c.d[q];
        c.m[q] = sv;
        c.d[q] = dcv;  // M(k-1) tMD for now; the D->D terms come below
        dcv = sv * to_d[j];
        c.ins[q] = multiply_add(ipv, ii[j], mpv * mi[j]);
      }
    }
    close_deletes(g, tr, c, g.template shift<Lane>(dcv, 0.0f));
    for (int q = 0; q < c.d.size(); ++q) lane_e += c.d[q];

    const float xE = g.sum(lane_e);
    s.xN = s.xN * s.loop;
    s.xC = s.xC * s.loop + xE * md.e_move;
    s.xJ = s.xJ * s.loop + xE * md.e_loop;
    s.xB = s.xJ * s.move + s.xN * s.move;
    if (xE > rescale_above) {
      const float inverse = 1.0f / xE;
      s.xN *= inverse;
      s.xC *= inverse;
      s.xJ *= inverse;
      s.xB *= inverse;
      for (int q = 0; q < c.m.size(); ++q) {
        c.m[q] *= inverse;
        c.ins[q] *= inverse;
        c.d[q] *= inverse;
      }
      s.log_scale += logf(xE);
    }
  }

  CUDP_HD static bool finished(const Specials&) { return false; }
  template <class Group>
  CUDP_HD static Result finish(const Model&, const Group&, const Specials& s) {
    return {s.log_scale + logf(s.xC * s.move)};
  }

 private:
  // d[0] holds 0 and d[q] (q >= 1) holds M(k-1) tMD on entry; `from_below` is the M->D term entering segment 0
  // from the position below. Leaves D with every D->D path added.
  template <class Group, class Seg>
  CUDP_HD static void close_deletes(const Group& g, const Columns<Seg>& tr, Cells<Seg>& c, float from_below) {
    using T = ForwardTransition;
    // This lane's run as one map D_last = a + b * D_in, where D_in is the D of the node just below the run and
    // tDD of that node multiplies it.
    float dd_in = g.template shift<Lane>(tr.last(T::DD, c.d), 0.0f);
    float a = from_below, b = dd_in;
    CUDP_UNROLL
    for (int q0 = 0; q0 < c.d.size(); q0 += 4) {
      float dd[4];
      tr.quad(T::DD, q0, c.d, dd);
      CUDP_UNROLL
      for (int j = 0; j < 4; ++j) {
        const int q = q0 + j;
        if (q + 1 >= c.d.size()) break;
        a = multiply_add(dd[j], a, c.d[q + 1]);  // D(q+1) = M(q) tMD(q) + tDD(q) D(q)
        b *= dd[j];
      }
    }
    // Inclusive scan of the maps up the group: afterwards (a, b) maps the D entering the group to this run's last D.
    for (int offset = 1; offset < Group::size; offset *= 2) {
      const float a_below = g.up(a, offset), b_below = g.up(b, offset);
      if (g.lane() >= offset) {
        a = multiply_add(b, a_below, a);
        b *= b_below;
      }
    }
    // D entering this run: the last D of the run below (nothing enters the group's first run).
    const float last_below = g.up(a, 1);
    const float d_in = g.lane() == 0 ? 0.0f : last_below;
    float d = multiply_add(dd_in, d_in, from_below);
    float dd_previous = 0.0f;  // tDD of the segment before q
    CUDP_UNROLL
    for (int q0 = 0; q0 < c.d.size(); q0 += 4) {
      float dd[4];
      tr.quad(T::DD, q0, c.d, dd);
      CUDP_UNROLL
      for (int j = 0; j < 4; ++j) {
        const int q = q0 + j;
        if (q >= c.d.size()) break;
        if (q > 0) d = multiply_add(dd_previous, d, c.d[q]);
        c.d[q] = d;
        dd_previous = dd[j];
      }
    }
  }
};

}  // namespace cudp::hmmer
