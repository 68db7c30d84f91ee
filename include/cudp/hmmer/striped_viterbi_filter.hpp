#pragma once
// HMMER 3.3.2's Viterbi filter (p7_ViterbiFilter: signed 16-bit words, scale 500/ln2, base 12000) as a striped row
// policy with Lazy-F:
//   M(i,k) = max(xB + tBM(k), M(i-1,k-1) + tMM, I(i-1,k-1) + tIM, D(i-1,k-1) + tDM) + msc(k, x_i)
//   I(i,k) = max(M(i-1,k) + tMI, I(i-1,k) + tII)          D(i,k) = M(i,k-1) + tMD [, D(i,k-1) + tDD]
//   xE = max_k M(i,k) (overflow at 32767); xC, xJ, xB as int16 variables; N, C, J loops cost 0.
// The D->D chains are closed only on rows where max_k D(i,k) + ddbound > xB (Lazy-F): otherwise no chain can beat
// entering the next row from B. Closing on more rows than HMMER changes no score, so the test may be taken over
// several groups at once (a tier keeps a warp converged that way).
//
// HMMER saturates every addition to int16. With DPX the additions wrap instead, so the words hold
// max(HMMER's value, floor) with floor = -16384: every sum of a word (>= floor) and a table entry (>= floor) stays
// in range, and the floor stands for everything below it. That is exact when nothing below the floor can win a
// maximum, which the engine checks per model (see viterbi_filter_fits_words): every real node is entered from B
// above the floor and no real transition or score is below it. Near the top, where M + msc could pass 32767, a
// row switches to the saturating add (rows after a score near HMMER's overflow point only).
#include <cstdint>

#include "../config.hpp"
#include "../recurrences/striped.hpp"

namespace cudp::hmmer {

enum class ViterbiTransition : int { Entry = 0, MM, IM, DM, MD, DD, MI, II, Count };

template <class L>
struct Plan7ViterbiFilter {
  using Lane = L;
  using Word = typename L::word;
  static constexpr const char* name = "viterbi";
  static constexpr int floor = -16384;
  static constexpr int top = 32767;

  struct Model {
    const Word* match = nullptr;        // Kp rows of shape.words() words, striped
    const Word* transitions = nullptr;  // ViterbiTransition::Count rows of shape.words() words, striped; entries
                                        // "into k" (MM, IM, DM from node k-1) sit at node k's place
    const std::int16_t* move_by_length = nullptr;  // N->B = J->B = C->T for a target of length L
    recurrences::StripedShape shape;
    int base = 12000, e_loop = 0, e_move = 0, ddbound = 0;
    int max_match = 0;  // the largest match score: a row may overflow 16 bits only when xE has come this close to top
  };

  // The transitions of the lane's nodes: in registers up to 24 segments (with a few spills), read from the table
  // four segments at a time beyond.
  template <class Seg>
  using Columns = recurrences::TransitionColumns<Word, Seg, ViterbiTransition, 24>;
  template <class Seg>
  using Cells = recurrences::MatchInsertDelete<Seg>;
  struct Specials {
    int xB = 0, xJ = -32768;
    int lane_best_e = -32768;  // this lane's largest row maximum so far: gives xC at the end, and when to saturate
    int move = 0;
    bool overflow = false;
    bool any_row = false;
  };
  struct Result {
    recurrences::StripedStatus status = recurrences::StripedStatus::Ok;
    std::int32_t xC = -32768;
  };

  template <class Seg>
  CUDP_HD static void begin(const Model& md, std::uint32_t length, Cells<Seg>& c, Specials& s) {
    const Word minus_infinity = L::splat(floor);
    for (int q = 0; q < c.m.size(); ++q) c.m[q] = c.ins[q] = c.d[q] = minus_infinity;
    s.move = md.move_by_length[length];
    s.xB = static_cast<std::int16_t>(md.base + s.move);
    s.xJ = s.lane_best_e = -32768;
    s.overflow = false;
    s.any_row = false;
  }

  // One row's sweep over the segments. Saturate: M + msc may pass 32767 on this row, so that add saturates.
  template <bool Saturate, class Seg>
  CUDP_HD static void segments(const Model& md, const Columns<Seg>& tr, Cells<Seg>& c, int code, int lane, Word xBv,
                               Word mpv, Word ipv, Word dpv, Word& xEv, Word& dmaxv, Word& dcv) {
    using T = ViterbiTransition;
    const Word minus_infinity = L::splat(floor);
    const Word* msc = md.shape.lane_words(md.match, code, lane);
    CUDP_UNROLL
    for (int q0 = 0; q0 < c.m.size(); q0 += 4) {
      Word scores[4], entry[4], mm[4], im[4], dm[4], to_d[4], mi[4], ii[4];
      recurrences::load_four(msc, q0, c.m, scores);
      tr.quad(T::Entry, q0, c.m, entry);
      tr.quad(T::MM, q0, c.m, mm);
      tr.quad(T::IM, q0, c.m, im);
      tr.quad(T::DM, q0, c.m, dm);
      tr.quad(T::MD, q0, c.m, to_d);
      tr.quad(T::MI, q0, c.m, mi);
      tr.quad(T::II, q0, c.m, ii);
      Word m_out[4], d_out[4];  // this quad's M and M->D values, folded into xE and Dmax after the quad
      CUDP_UNROLL
      for (int j = 0; j < 4; ++j) {
        const int q = q0 + j;
        m_out[j] = d_out[j] = minus_infinity;
        if (q >= c.m.size()) continue;
        Word sv = L::add_max(xBv, entry[j], minus_infinity);
        sv = L::add_max(mpv, mm[j], sv);
        sv = L::add_max(ipv, im[j], sv);
        sv = L::add_max(dpv, dm[j], sv);
        if constexpr (Saturate) {
          sv = L::max(L::adds(sv, scores[j]), minus_infinity);
        } else {
          sv = L::add_max(sv, scores[j], minus_infinity);
        }
        m_out[j] = sv;
        mpv = c.m[q];
        ipv = c.ins[q];
        dpv = c.d[q];
        c.m[q] = sv;
        c.d[q] = dcv;
        dcv = L::add_max(sv, to_d[j], minus_infinity);
        d_out[j] = dcv;
        c.ins[q] = L::add_max(ipv, ii[j], L::add_max(mpv, mi[j], minus_infinity));
      }
      // One link per quad in the xE and Dmax chains, not one per segment: shorter dependency chains.
      xEv = L::max3(xEv, L::max3(m_out[0], m_out[1], m_out[2]), m_out[3]);
      dmaxv = L::max3(dmaxv, L::max3(d_out[0], d_out[1], d_out[2]), d_out[3]);
    }
  }

  template <class Group, class Seg>
  CUDP_HD static void row(const Model& md, const Group& g, const Columns<Seg>& tr, Cells<Seg>& c, Specials& s,
                          int code) {
    using T = ViterbiTransition;
    const Word minus_infinity = L::splat(floor);
    const int last = c.m.size() - 1;
    Word mpv = g.template shift<L>(c.m[last], minus_infinity);
    Word ipv = g.template shift<L>(c.ins[last], minus_infinity);
    Word dpv = g.template shift<L>(c.d[last], minus_infinity);
    Word xEv = minus_infinity, dmaxv = minus_infinity, dcv = minus_infinity;
    const Word xBv = L::splat(s.xB);
    const int highest_entry = s.lane_best_e > md.base ? s.lane_best_e : md.base;  // bounds M before its emission
    const bool saturate = g.any(highest_entry + md.max_match >= top);
    if (saturate) {
      segments<true>(md, tr, c, code, g.lane(), xBv, mpv, ipv, dpv, xEv, dmaxv, dcv);
    } else {
      segments<false>(md, tr, c, code, g.lane(), xBv, mpv, ipv, dpv, xEv, dmaxv, dcv);
    }

    // xC = max over rows of xE + tEC comes from the lanes' running maxima at the end. B moves only when a row's
    // xE + tEJ passes max(xJ, base), overflow comes at 32767: a vote finds those rows, and only they reduce.
    const int lane_e = recurrences::horizontal_max<L>(xEv);
    s.lane_best_e = s.lane_best_e > lane_e ? s.lane_best_e : lane_e;
    s.any_row = true;
    const int moves_b = (s.xJ > md.base ? s.xJ : md.base) - md.e_loop;
    if (g.any(lane_e > moves_b || lane_e >= top)) {
      const int xE = g.max(lane_e);
      if (xE >= top) s.overflow = true;
      s.xJ = static_cast<std::int16_t>(s.xJ > xE + md.e_loop ? s.xJ : xE + md.e_loop);
      const int from_j = s.xJ + s.move, from_n = md.base + s.move;
      s.xB = static_cast<std::int16_t>(from_j > from_n ? from_j : from_n);
    }

    // Lazy-F: M->D into segment 0 comes from the last segment; D->D only where a chain could beat B next row.
    dcv = g.template shift<L>(dcv, minus_infinity);
    if (!g.any(recurrences::horizontal_max<L>(dmaxv) + md.ddbound > s.xB)) {
      c.d[0] = dcv;
      return;
    }
    for (;;) {
      CUDP_UNROLL
      for (int q0 = 0; q0 < c.d.size(); q0 += 4) {
        Word dd[4];
        tr.quad(T::DD, q0, c.d, dd);
        CUDP_UNROLL
        for (int j = 0; j < 4 && q0 + j < c.d.size(); ++j) {
          c.d[q0 + j] = L::max(dcv, c.d[q0 + j]);
          dcv = L::add_max(c.d[q0 + j], dd[j], minus_infinity);
        }
      }
      dcv = g.template shift<L>(dcv, minus_infinity);
      if (!g.any(L::any_greater(dcv, c.d[0]))) break;  // nothing crosses into segment 0: the chains are closed
    }
  }

  CUDP_HD static bool finished(const Specials& s) { return s.overflow; }
  template <class Group>
  CUDP_HD static Result finish(const Model& md, const Group& g, const Specials& s) {
    const int best_e = g.max(s.lane_best_e);
    const int xC = s.any_row ? static_cast<std::int16_t>(best_e + md.e_move) : -32768;
    return {s.overflow ? recurrences::StripedStatus::Overflow : recurrences::StripedStatus::Ok, xC};
  }
};

}  // namespace cudp::hmmer
