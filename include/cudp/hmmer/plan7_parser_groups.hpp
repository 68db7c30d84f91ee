#pragma once
// HMMER's Forward and Backward parsers (striped_forward and striped_backward keeping one row of cells,
// plan7_posterior.hpp) for four targets of one model at once, on the host's 512-bit vectors: target t owns the t-th
// 128-bit quarter of every register and computes there exactly what the single-target code computes in its four
// SSE lanes, operation for operation. Nothing crosses a quarter (the striped shifts are permutes within 128-bit
// lanes, the horizontal sums are taken per quarter as (a0 + a1) + (a2 + a3)), so each target's special rows are
// bit for bit the single-target ones, and so are the scores and domains built on them. A parser row is mostly
// chains of dependent vector operations; four targets' chains in one register take 0.4-0.5 times the time of the
// four one after another (models of 100-1000 nodes on an AVX-512 Xeon core).
//
// Where the single-target code branches on its values, each quarter keeps its own decision:
// - Forward's D->D passes stop for a target once a pass changes none of its D's (HMMER's test for models of 100
//   nodes or more); its quarter of the carried value is then zeroed, which adds exactly nothing and leaves its sum
//   of E as its last pass left it. Passes that stop because the carried value is 0 add nothing either way.
// - Rescaling (Forward: E above 1e4; Backward: the Forward's factors, or its own once B passes 1e16) multiplies a
//   target's quarter by its factor, and the other quarters by 1, which is exact: with HMMER's flush-to-zero mode no
//   stored value is subnormal.
// Targets of unequal lengths run in step: Forward rows from the first residue, Backward rows from each target's
// last, a target's quarter running on as padding once its rows are done (and never written).
//
// Outputs are special rows in ParserSpecials' layout, for Plan7Pipeline::before_envelopes: the forward and backward
// rows of target t, (L_t + 1) x kSpecialCount floats each. Built only by GCC for x86-64 (the 512-bit code is
// compiled for AVX-512F in this header alone and run only where the CPU has it: parser_group_width()).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "plan7_posterior.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define CUDP_HAS_PARSER_GROUPS 1
#include <immintrin.h>
#endif

namespace cudp::hmmer {

// One target of a group: its residue codes and length (at least 1), where its special rows go, and whether its
// Backward switched to its own scale factors.
struct ParserGroupTarget {
  const std::uint8_t* dsq = nullptr;
  int L = 0;
  float* forward = nullptr;
  float* backward = nullptr;
  bool backward_own_scales = false;
};

constexpr int kParserGroupSize = 4;

// How many targets parsers_for_group takes at once on this CPU: 4 with AVX-512F, else 1 (callers then run the
// single-target parsers).
inline int parser_group_width() {
#ifdef CUDP_HAS_PARSER_GROUPS
  static const int width = __builtin_cpu_supports("avx512f") ? kParserGroupSize : 1;
  return width;
#else
  return 1;
#endif
}

#ifdef CUDP_HAS_PARSER_GROUPS
#pragma GCC push_options
#pragma GCC target("avx512f")
#pragma GCC optimize("fp-contract=off")
// GCC 12 takes the intrinsics' undefined upper lanes (_mm512_undefined_ps in the broadcasts) for uninitialized reads.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace detail::parser_groups {

using SM = StripedMatrix;
// A striped vector of the four targets of a group, target t in quarter t. (Groups of eight, two registers with two
// sets of chains interleaved, measured no faster on an AVX-512 Xeon core, and pad more.)
using W = __m512;
static_assert(kParserGroupSize == 4, "a group is one 512-bit register of four 128-bit quarters");
using Quarters = unsigned;  // a bit per target

inline W zero() { return _mm512_setzero_ps(); }
inline W add(W a, W b) { return _mm512_add_ps(a, b); }
inline W mul(W a, W b) { return _mm512_mul_ps(a, b); }
// lanes4::shift_up and shift_down in every quarter: lane r takes lane r-1 (r+1), the emptied lane 0.
inline W shift_up(W a) { return _mm512_maskz_permute_ps(0xEEEE, a, _MM_SHUFFLE(2, 1, 0, 0)); }
inline W shift_down(W a) { return _mm512_maskz_permute_ps(0x7777, a, _MM_SHUFFLE(3, 3, 2, 1)); }
inline __m128 lanes4_of(const Lanes4& a) { return reinterpret_cast<const __m128&>(a.v); }
// The model's vector in every quarter.
inline W wide(const Lanes4& a) { return _mm512_broadcast_f32x4(lanes4_of(a)); }
// Vector q of every target's own row (its residue's match odds).
inline W quarters(const Lanes4* const rows[kParserGroupSize], int q) {
  W v = _mm512_broadcast_f32x4(lanes4_of(rows[0][q]));
  v = _mm512_insertf32x4(v, lanes4_of(rows[1][q]), 1);
  v = _mm512_insertf32x4(v, lanes4_of(rows[2][q]), 2);
  return _mm512_insertf32x4(v, lanes4_of(rows[3][q]), 3);
}
inline W splats(const float s[kParserGroupSize]) {
  return _mm512_setr_ps(s[0], s[0], s[0], s[0], s[1], s[1], s[1], s[1], s[2], s[2], s[2], s[2], s[3], s[3], s[3],
                        s[3]);
}
// The lanes where a > b (_mm_cmpgt_ps).
inline __mmask16 greater(W a, W b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OS); }
inline Quarters quarters_of(__mmask16 lanes) {
  Quarters out = 0;
  for (int t = 0; t < kParserGroupSize; ++t) out |= ((lanes >> (4 * t)) & 0xFu) != 0 ? 1u << t : 0u;
  return out;
}
// The quarters of `keep` as they are, the others 0.
inline W keep(Quarters quarters, W a) {
  __mmask16 lanes = 0;
  for (int t = 0; t < kParserGroupSize; ++t)
    if (quarters & (1u << t)) lanes = static_cast<__mmask16>(lanes | (0xFu << (4 * t)));
  return _mm512_maskz_mov_ps(lanes, a);
}
inline bool all_zero(W a) { return _mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_EQ_OQ) == 0xFFFF; }
// lanes4::sum of every quarter.
inline void sums(W a, float out[kParserGroupSize]) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, a);
  for (int t = 0; t < kParserGroupSize; ++t) {
    const float low = lanes[4 * t] + lanes[4 * t + 1];
    const float high = lanes[4 * t + 2] + lanes[4 * t + 3];
    out[t] = low + high;
  }
}

// Two rows of cells, M, D and I per striped vector, as StripedMatrix lays out one target's.
class Rows {
 public:
  explicit Rows(int Q) : Q_(Q), cells_(static_cast<std::size_t>(Q) * 6) {}
  W* row(int i) { return &cells_[static_cast<std::size_t>(i & 1) * static_cast<std::size_t>(Q_) * 3].w; }
  static W& at(W* row, int q, SM::Cell c) { return row[q * 3 + c]; }

 private:
  struct alignas(64) Cell {
    W w;
  };
  int Q_;
  std::vector<Cell> cells_;
};

// Every cell of a row times its target's factor (1 for the targets not rescaled: exact, see above).
inline void scale_row(W* row, int Q, const float factor[kParserGroupSize]) {
  const W f = splats(factor);
  for (int q = 0; q < Q; ++q) {
    Rows::at(row, q, SM::kM) = mul(Rows::at(row, q, SM::kM), f);
    Rows::at(row, q, SM::kD) = mul(Rows::at(row, q, SM::kD), f);
    Rows::at(row, q, SM::kI) = mul(Rows::at(row, q, SM::kI), f);
  }
}

inline void write_specials(float* rows, int i, float xE, float xN, float xJ, float xB, float xC, float scale) {
  float* r = rows + static_cast<std::size_t>(i) * SM::kSpecials;
  r[SM::kE] = xE;
  r[SM::kN] = xN;
  r[SM::kJ] = xJ;
  r[SM::kB] = xB;
  r[SM::kC] = xC;
  r[SM::kScale] = scale;
}

// Every target's length model in multihit mode, as the pipeline's workspace sets it (Plan7Pipeline::prepare).
inline void length_models(const ParserGroupTarget* tg, int count, OddsSpecials xf[kParserGroupSize]) {
  for (int t = 0; t < kParserGroupSize; ++t) xf[t] = multihit_specials(t < count ? tg[t].L : 1);
}

inline void forward(const StripedOddsProfile& om, const ParserGroupTarget* tg, int count, Rows& rows) {
  const int Q = om.Q();
  OddsSpecials xf[kParserGroupSize];
  length_models(tg, count, xf);
  int longest = 0;
  for (int t = 0; t < count; ++t) longest = std::max(longest, tg[t].L);
  float xE[kParserGroupSize], xN[kParserGroupSize], xJ[kParserGroupSize], xB[kParserGroupSize], xC[kParserGroupSize];
  float scale[kParserGroupSize];
  for (int t = 0; t < kParserGroupSize; ++t) {
    xE[t] = 0.0f, xN[t] = 1.0f, xJ[t] = 0.0f, xB[t] = xf[t].n_move, xC[t] = 0.0f;
    if (t < count) write_specials(tg[t].forward, 0, xE[t], xN[t], xJ[t], xB[t], xC[t], 1.0f);
  }
  W* dpc = rows.row(0);
  for (int q = 0; q < Q; ++q) Rows::at(dpc, q, SM::kM) = Rows::at(dpc, q, SM::kI) = Rows::at(dpc, q, SM::kD) = zero();
  const bool stop_unchanged = om.M() >= 100;
  for (int i = 1; i <= longest; ++i) {
    W* dpp = rows.row(i - 1);
    dpc = rows.row(i);
    const Lanes4* rp[kParserGroupSize];
    for (int t = 0; t < kParserGroupSize; ++t) rp[t] = om.match(t < count && i <= tg[t].L ? tg[t].dsq[i - 1] : 0);
    W dcv = zero(), xEv = zero();
    const W xBv = splats(xB);
    W mpv = shift_up(Rows::at(dpp, Q - 1, SM::kM));
    W dpv = shift_up(Rows::at(dpp, Q - 1, SM::kD));
    W ipv = shift_up(Rows::at(dpp, Q - 1, SM::kI));
    for (int q = 0; q < Q; ++q) {
      W sv = mul(xBv, wide(om.transition(q, kOddsBM)));
      sv = add(sv, mul(mpv, wide(om.transition(q, kOddsMM))));
      sv = add(sv, mul(ipv, wide(om.transition(q, kOddsIM))));
      sv = add(sv, mul(dpv, wide(om.transition(q, kOddsDM))));
      sv = mul(sv, quarters(rp, q));
      xEv = add(xEv, sv);
      mpv = Rows::at(dpp, q, SM::kM);
      dpv = Rows::at(dpp, q, SM::kD);
      ipv = Rows::at(dpp, q, SM::kI);
      Rows::at(dpc, q, SM::kM) = sv;
      Rows::at(dpc, q, SM::kD) = dcv;
      dcv = mul(sv, wide(om.transition(q, kOddsMD)));
      sv = mul(mpv, wide(om.transition(q, kOddsMI)));
      Rows::at(dpc, q, SM::kI) = add(sv, mul(ipv, wide(om.transition(q, kOddsII))));
    }
    dcv = shift_up(dcv);
    Rows::at(dpc, 0, SM::kD) = zero();
    for (int q = 0; q < Q; ++q) {
      Rows::at(dpc, q, SM::kD) = add(dcv, Rows::at(dpc, q, SM::kD));
      dcv = mul(Rows::at(dpc, q, SM::kD), wide(om.dd(q)));
    }
    const W xEv_from_m = xEv;
    Quarters going = 0;  // the targets whose D->D passes go on: those with a row here
    for (int t = 0; t < count; ++t) going |= i <= tg[t].L ? 1u << t : 0u;
    for (int j = 1; j < 4; ++j) {
      dcv = keep(going, shift_up(dcv));
      xEv = xEv_from_m;
      __mmask16 changed = 0;
      int q = 0;
      while (q < Q) {
        const W sv = add(dcv, Rows::at(dpc, q, SM::kD));
        changed = static_cast<__mmask16>(changed | greater(sv, Rows::at(dpc, q, SM::kD)));
        Rows::at(dpc, q, SM::kD) = sv;
        xEv = add(sv, xEv);
        dcv = mul(dcv, wide(om.dd(q)));
        if ((++q & 7) == 0 && all_zero(dcv)) break;
      }
      if (q < Q || all_zero(dcv)) {
        for (; q < Q; ++q) xEv = add(Rows::at(dpc, q, SM::kD), xEv);
        break;
      }
      if (stop_unchanged) going &= quarters_of(changed);
      if (going == 0) break;
    }
    sums(xEv, xE);
    bool rescaled = false;
    for (int t = 0; t < kParserGroupSize; ++t) {
      xN[t] = xN[t] * xf[t].n_loop;
      xC[t] = (xC[t] * xf[t].c_loop) + (xE[t] * xf[t].e_move);
      xJ[t] = (xJ[t] * xf[t].j_loop) + (xE[t] * xf[t].e_loop);
      xB[t] = (xJ[t] * xf[t].j_move) + (xN[t] * xf[t].n_move);
      scale[t] = 1.0f;
      const bool own_row = t < count && i <= tg[t].L;
      if (own_row && xE[t] > 1.0e4f) {
        xN[t] = xN[t] / xE[t];
        xC[t] = xC[t] / xE[t];
        xJ[t] = xJ[t] / xE[t];
        xB[t] = xB[t] / xE[t];
        scale[t] = static_cast<float>(1.0 / static_cast<double>(xE[t]));
        write_specials(tg[t].forward, i, 1.0f, xN[t], xJ[t], xB[t], xC[t], xE[t]);
        xE[t] = 1.0f;
        rescaled = true;
      } else if (own_row) {
        write_specials(tg[t].forward, i, xE[t], xN[t], xJ[t], xB[t], xC[t], 1.0f);
      }
    }
    if (rescaled) scale_row(dpc, Q, scale);
  }
}

// detail::finish_backward_deletes on the quarters in `live` (the others are padding: their chains are dropped). Its
// early stops are exact (a carried 0 adds nothing), so they are taken here once every quarter's carried value is 0.
inline void finish_backward_deletes(const StripedOddsProfile& om, W* dpc, W dcv, Quarters live) {
  const int Q = om.Q();
  dcv = keep(live, dcv);
  for (int j = 1; j < 4 && !all_zero(dcv); ++j) {
    dcv = shift_down(dcv);
    for (int q = Q - 1; q >= 0; --q) {
      dcv = mul(dcv, wide(om.dd(q)));
      Rows::at(dpc, q, SM::kD) = add(Rows::at(dpc, q, SM::kD), dcv);
      if ((q & 7) == 0 && all_zero(dcv)) break;
    }
  }
  dcv = shift_down(Rows::at(dpc, 0, SM::kD));
  for (int q = Q - 1; q >= 0; --q) {
    Rows::at(dpc, q, SM::kM) = add(Rows::at(dpc, q, SM::kM), mul(dcv, wide(om.transition(q, kOddsMD))));
    dcv = Rows::at(dpc, q, SM::kD);
  }
}

// Row 0 of target t's Backward (only N and B), from its row 1 in `row1`.
inline void backward_row0(const StripedOddsProfile& om, const ParserGroupTarget& target, int t, const W* row1,
                          const OddsSpecials& xf, float xN) {
  const int Q = om.Q();
  const Lanes4* rp[kParserGroupSize];
  for (int u = 0; u < kParserGroupSize; ++u) rp[u] = om.match(target.dsq[0]);
  W xBv = zero();
  for (int q = 0; q < Q; ++q) {
    W mpv = mul(row1[q * 3 + SM::kM], quarters(rp, q));
    mpv = mul(mpv, wide(om.transition(q, kOddsBM)));
    xBv = add(xBv, mpv);
  }
  float xB[kParserGroupSize];
  sums(xBv, xB);
  xN = (xB[t] * xf.n_move) + (xN * xf.n_loop);
  write_specials(target.backward, 0, 0.0f, xN, 0.0f, xB[t], 0.0f, 1.0f);
}

inline void backward(const StripedOddsProfile& om, ParserGroupTarget* tg, int count, Rows& rows) {
  const int Q = om.Q();
  OddsSpecials xf[kParserGroupSize];
  length_models(tg, count, xf);
  int longest = 0;
  for (int t = 0; t < count; ++t) longest = std::max(longest, tg[t].L);
  // Step s computes row L_t - s of every target t: its last row first.
  const auto row_of = [&](int t, int s) { return t < count ? tg[t].L - s : 0; };
  const auto forward_scale = [&](int t, int i) {
    return tg[t].forward[static_cast<std::size_t>(i) * SM::kSpecials + SM::kScale];
  };
  float xE[kParserGroupSize], xN[kParserGroupSize], xJ[kParserGroupSize], xB[kParserGroupSize], xC[kParserGroupSize];
  float factor[kParserGroupSize];
  bool own_scales[kParserGroupSize] = {};
  W* dpc = rows.row(0);
  for (int t = 0; t < kParserGroupSize; ++t) {
    xJ[t] = 0.0f, xB[t] = 0.0f, xN[t] = 0.0f;
    xC[t] = xf[t].c_move;
    xE[t] = xC[t] * xf[t].e_move;
  }
  W xEv = splats(xE);
  for (int q = 0; q < Q; ++q) Rows::at(dpc, q, SM::kM) = Rows::at(dpc, q, SM::kD) = xEv;
  for (int q = 0; q < Q; ++q) Rows::at(dpc, q, SM::kI) = zero();
  W dcv = zero();
  W dpv = shift_down(Rows::at(dpc, Q - 1, SM::kD));
  for (int q = Q - 1; q >= 0; --q) {
    dcv = mul(dpv, wide(om.dd(q)));
    Rows::at(dpc, q, SM::kD) = add(Rows::at(dpc, q, SM::kD), dcv);
    dpv = Rows::at(dpc, q, SM::kD);
  }
  finish_backward_deletes(om, dpc, dcv, (1u << count) - 1);
  bool rescaled = false;
  for (int t = 0; t < kParserGroupSize; ++t) {
    factor[t] = 1.0f;
    if (t >= count) continue;
    const float scale_L = forward_scale(t, tg[t].L);
    if (scale_L > 1.0f) {
      xE[t] = xE[t] / scale_L;
      xN[t] = xN[t] / scale_L;
      xC[t] = xC[t] / scale_L;
      xJ[t] = xJ[t] / scale_L;
      xB[t] = xB[t] / scale_L;
      factor[t] = static_cast<float>(1.0 / static_cast<double>(scale_L));
      rescaled = true;
    }
    write_specials(tg[t].backward, tg[t].L, xE[t], xN[t], xJ[t], xB[t], xC[t], scale_L);
  }
  if (rescaled) scale_row(dpc, Q, factor);
  for (int t = 0; t < count; ++t)
    if (tg[t].L == 1) backward_row0(om, tg[t], t, dpc, xf[t], xN[t]);

  const Lanes4 tmm0 = lanes4::shift_down(om.transition(0, kOddsMM));
  const Lanes4 tim0 = lanes4::shift_down(om.transition(0, kOddsIM));
  const Lanes4 tdm0 = lanes4::shift_down(om.transition(0, kOddsDM));
  for (int s = 1; s < longest; ++s) {
    dpc = rows.row(s);
    W* dpp = rows.row(s - 1);
    const Lanes4* rp[kParserGroupSize];
    for (int t = 0; t < kParserGroupSize; ++t) {
      const int i = row_of(t, s);
      rp[t] = om.match(i >= 1 ? tg[t].dsq[i] : 0);  // residue i+1
    }
    W tmmv = wide(tmm0), timv = wide(tim0), tdmv = wide(tdm0);
    W mpv = shift_down(mul(Rows::at(dpp, 0, SM::kM), quarters(rp, 0)));
    W xBv = zero();
    for (int q = Q - 1; q >= 0; --q) {
      const W ipv = Rows::at(dpp, q, SM::kI);
      Rows::at(dpc, q, SM::kI) = add(mul(ipv, wide(om.transition(q, kOddsII))), mul(mpv, timv));
      Rows::at(dpc, q, SM::kD) = mul(mpv, tdmv);
      const W mcv = add(mul(ipv, wide(om.transition(q, kOddsMI))), mul(mpv, tmmv));
      mpv = mul(Rows::at(dpp, q, SM::kM), quarters(rp, q));
      Rows::at(dpc, q, SM::kM) = mcv;
      tdmv = wide(om.transition(q, kOddsDM));
      timv = wide(om.transition(q, kOddsIM));
      tmmv = wide(om.transition(q, kOddsMM));
      xBv = add(xBv, mul(mpv, wide(om.transition(q, kOddsBM))));
    }
    sums(xBv, xB);
    for (int t = 0; t < kParserGroupSize; ++t) {
      xC[t] = xC[t] * xf[t].c_loop;
      xJ[t] = (xB[t] * xf[t].j_move) + (xJ[t] * xf[t].j_loop);
      xN[t] = (xB[t] * xf[t].n_move) + (xN[t] * xf[t].n_loop);
      xE[t] = (xC[t] * xf[t].e_move) + (xJ[t] * xf[t].e_loop);
    }
    xEv = splats(xE);
    dpv = shift_down(add(Rows::at(dpc, 0, SM::kD), xEv));
    for (int q = Q - 1; q >= 0; --q) {
      dcv = mul(dpv, wide(om.dd(q)));
      Rows::at(dpc, q, SM::kD) = add(Rows::at(dpc, q, SM::kD), add(dcv, xEv));
      dpv = Rows::at(dpc, q, SM::kD);
      Rows::at(dpc, q, SM::kM) = add(Rows::at(dpc, q, SM::kM), xEv);
    }
    Quarters live = 0;
    for (int t = 0; t < count; ++t) live |= row_of(t, s) >= 1 ? 1u << t : 0u;
    finish_backward_deletes(om, dpc, dcv, live);
    rescaled = false;
    for (int t = 0; t < kParserGroupSize; ++t) {
      factor[t] = 1.0f;
      const int i = row_of(t, s);
      if (i < 1) continue;
      if (xB[t] > 1.0e16f) own_scales[t] = true;
      const float scale = own_scales[t] ? (xB[t] > 1.0e4f ? xB[t] : 1.0f) : forward_scale(t, i);
      if (scale > 1.0f) {
        xE[t] /= scale;
        xN[t] /= scale;
        xJ[t] /= scale;
        xB[t] /= scale;
        xC[t] /= scale;
        factor[t] = static_cast<float>(1.0 / static_cast<double>(scale));
        rescaled = true;
      }
      write_specials(tg[t].backward, i, xE[t], xN[t], xJ[t], xB[t], xC[t], scale);
    }
    if (rescaled) scale_row(dpc, Q, factor);
    for (int t = 0; t < count; ++t)
      if (row_of(t, s) == 1) backward_row0(om, tg[t], t, dpc, xf[t], xN[t]);
  }
  for (int t = 0; t < count; ++t) tg[t].backward_own_scales = own_scales[t];
}

}  // namespace detail::parser_groups

// The Forward and Backward parsers of `count` (1 to 4) targets of `om`'s model, their special rows written where
// `targets` says (see ParserGroupTarget). Only where parser_group_width() is 4. The caller's thread must be in
// HMMER's float mode (use_hmmer_float_mode), as for striped_forward.
inline void parsers_for_group(const StripedOddsProfile& om, ParserGroupTarget* targets, int count) {
  detail::parser_groups::Rows rows(om.Q());
  detail::parser_groups::forward(om, targets, count, rows);
  detail::parser_groups::backward(om, targets, count, rows);
}

// The Forward parser alone (the targets' `backward` rows are not written), as for HMMER's F3 decision.
inline void forward_parsers_for_group(const StripedOddsProfile& om, ParserGroupTarget* targets, int count) {
  detail::parser_groups::Rows rows(om.Q());
  detail::parser_groups::forward(om, targets, count, rows);
}

#pragma GCC diagnostic pop
#pragma GCC pop_options
#else
// Without the 512-bit code parser_group_width() is 1, and these are never called.
inline void parsers_for_group(const StripedOddsProfile&, ParserGroupTarget*, int) {
  throw std::logic_error("parsers_for_group: this build has no grouped parsers (parser_group_width() is 1)");
}
inline void forward_parsers_for_group(const StripedOddsProfile&, ParserGroupTarget*, int) {
  throw std::logic_error("forward_parsers_for_group: this build has no grouped parsers (parser_group_width() is 1)");
}
#endif  // CUDP_HAS_PARSER_GROUPS

}  // namespace cudp::hmmer
