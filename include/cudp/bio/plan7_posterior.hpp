#pragma once
// HMMER 3.3.2's probability-space dynamic programming after the filters, bit for bit: Forward and Backward with
// sparse rescaling (fwdback.c), posterior decoding of states and of domain boundaries (decoding.c), null2 by
// expectation and by sampled traces (null2.c), stochastic traceback (stotrace.c) and the optimal-accuracy
// alignment (optacc.c), all on the striped layout of plan7_odds_profile.hpp.
//
// Values are probabilities (odds against the null model) scaled per row: a row whose E value exceeds 1e4 is
// divided by it and the factor is kept, so that single precision never overflows; the Backward matrix reuses the
// Forward's factors, which makes products of Forward and Backward cells posterior probabilities up to one constant.
// Everything is single precision in HMMER's order of operations, because the domain definition downstream samples
// tracebacks with thresholds on these numbers (see plan7_odds_profile.hpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "plan7_odds_profile.hpp"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

namespace cudp::bio {

// HMMER's P7_OMX: rows 0..L of striped M, D, I vectors and the special states with each row's scale factor.
struct StripedMatrix {
  enum Cell { kM = 0, kD = 1, kI = 2 };
  enum Special { kE = 0, kN, kJ, kB, kC, kScale, kSpecials };

  int M = 0, Q = 2, L = 0;
  bool full = true;  // false: one row of cells (the "parser" versions), specials for every row
  bool has_own_scales = false;
  float totscale = 0;
  std::vector<Lanes4> cells;
  std::vector<float> specials;

  void resize(int model_length, int segments, int length, bool keep_all_rows) {
    M = model_length;
    Q = segments;
    L = length;
    full = keep_all_rows;
    const std::size_t rows = keep_all_rows ? static_cast<std::size_t>(length) + 1 : 2;
    if (cells.size() < rows * static_cast<std::size_t>(Q) * 3) cells.resize(rows * static_cast<std::size_t>(Q) * 3);
    specials.assign((static_cast<std::size_t>(length) + 1) * kSpecials, 0.0f);
  }
  // In a parser matrix rows alternate between two buffers; a full matrix keeps them all.
  Lanes4* row(int i) { return &cells[static_cast<std::size_t>(full ? i : (i & 1)) * static_cast<std::size_t>(Q) * 3]; }
  const Lanes4* row(int i) const {
    return &cells[static_cast<std::size_t>(full ? i : (i & 1)) * static_cast<std::size_t>(Q) * 3];
  }
  float& x(int i, Special s) { return specials[static_cast<std::size_t>(i) * kSpecials + s]; }
  float x(int i, Special s) const { return specials[static_cast<std::size_t>(i) * kSpecials + s]; }
  // Node k's value of cell c on row i.
  float node(int i, int k, Cell c) const { return row(i)[((k - 1) % Q) * 3 + c].v[(k - 1) / Q]; }
};

namespace detail {
inline Lanes4& cell(Lanes4* row, int q, StripedMatrix::Cell c) { return row[q * 3 + c]; }
inline const Lanes4& cell(const Lanes4* row, int q, StripedMatrix::Cell c) { return row[q * 3 + c]; }

// esl_vec_FSum: Kahan-compensated.
inline float easel_sum(const float* v, std::size_t n) {
  CUDP_PLAN7_NO_FP_CONTRACT
  float sum = 0.0f, c = 0.0f;
  for (std::size_t i = 0; i < n; ++i) {
    const float y = v[i] - c;
    const float t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  return sum;
}
}  // namespace detail

// p7_Forward (keep_all_rows) or p7_ForwardParser, on dsq[0..L-1]. Returns the Forward score in nats.
inline float striped_forward(const StripedOddsProfile& om, const std::uint8_t* dsq, int L, StripedMatrix& ox,
                             bool keep_all_rows) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using lanes4::add;
  using lanes4::mul;
  using lanes4::shift_up;
  using SM = StripedMatrix;
  const int Q = om.Q();
  ox.resize(om.M(), Q, L, keep_all_rows);
  ox.has_own_scales = true;
  const OddsSpecials& xf = om.xf();
  Lanes4* dpc = ox.row(0);
  for (int q = 0; q < Q; ++q) detail::cell(dpc, q, SM::kM) = detail::cell(dpc, q, SM::kI) = detail::cell(dpc, q, SM::kD) = Lanes4{};
  float xE = 0.0f, xN = 1.0f, xJ = 0.0f, xB = xf.n_move, xC = 0.0f;
  ox.x(0, SM::kE) = xE;
  ox.x(0, SM::kN) = xN;
  ox.x(0, SM::kJ) = xJ;
  ox.x(0, SM::kB) = xB;
  ox.x(0, SM::kC) = xC;
  ox.x(0, SM::kScale) = 1.0f;
  ox.totscale = 0.0f;
  for (int i = 1; i <= L; ++i) {
    const Lanes4* dpp = ox.row(i - 1);
    dpc = ox.row(i);
    const Lanes4* rp = om.match(dsq[i - 1]);
    Lanes4 dcv{}, xEv{};
    const Lanes4 xBv = lanes4::splat(xB);
    Lanes4 mpv = shift_up(detail::cell(dpp, Q - 1, SM::kM));
    Lanes4 dpv = shift_up(detail::cell(dpp, Q - 1, SM::kD));
    Lanes4 ipv = shift_up(detail::cell(dpp, Q - 1, SM::kI));
    for (int q = 0; q < Q; ++q) {
      Lanes4 sv = mul(xBv, om.transition(q, kOddsBM));
      sv = add(sv, mul(mpv, om.transition(q, kOddsMM)));
      sv = add(sv, mul(ipv, om.transition(q, kOddsIM)));
      sv = add(sv, mul(dpv, om.transition(q, kOddsDM)));
      sv = mul(sv, rp[q]);
      xEv = add(xEv, sv);
      mpv = detail::cell(dpp, q, SM::kM);
      dpv = detail::cell(dpp, q, SM::kD);
      ipv = detail::cell(dpp, q, SM::kI);
      detail::cell(dpc, q, SM::kM) = sv;
      detail::cell(dpc, q, SM::kD) = dcv;
      dcv = mul(sv, om.transition(q, kOddsMD));
      sv = mul(mpv, om.transition(q, kOddsMI));
      detail::cell(dpc, q, SM::kI) = add(sv, mul(ipv, om.transition(q, kOddsII)));
    }
    // D->D paths: one pass along each lane's segment, then up to three more passes carrying across lanes.
    dcv = shift_up(dcv);
    detail::cell(dpc, 0, SM::kD) = Lanes4{};
    for (int q = 0; q < Q; ++q) {
      detail::cell(dpc, q, SM::kD) = add(dcv, detail::cell(dpc, q, SM::kD));
      dcv = mul(detail::cell(dpc, q, SM::kD), om.dd(q));
    }
    if (om.M() < 100) {
      for (int j = 1; j < 4; ++j) {
        dcv = shift_up(dcv);
        for (int q = 0; q < Q; ++q) {
          detail::cell(dpc, q, SM::kD) = add(dcv, detail::cell(dpc, q, SM::kD));
          dcv = mul(dcv, om.dd(q));
        }
      }
    } else {
      for (int j = 1; j < 4; ++j) {
        dcv = shift_up(dcv);
        bool changed = false;
        for (int q = 0; q < Q; ++q) {
          const Lanes4 sv = add(dcv, detail::cell(dpc, q, SM::kD));
          for (int r = 0; r < 4; ++r) changed = changed || sv.v[r] > detail::cell(dpc, q, SM::kD).v[r];
          detail::cell(dpc, q, SM::kD) = sv;
          dcv = mul(dcv, om.dd(q));
        }
        if (!changed) break;
      }
    }
    for (int q = 0; q < Q; ++q) xEv = add(detail::cell(dpc, q, SM::kD), xEv);
    xE = lanes4::sum(xEv);
    xN = xN * xf.n_loop;
    xC = (xC * xf.c_loop) + (xE * xf.e_move);
    xJ = (xJ * xf.j_loop) + (xE * xf.e_loop);
    xB = (xJ * xf.j_move) + (xN * xf.n_move);
    if (xE > 1.0e4f) {
      xN = xN / xE;
      xC = xC / xE;
      xJ = xJ / xE;
      xB = xB / xE;
      const Lanes4 scale = lanes4::splat(static_cast<float>(1.0 / static_cast<double>(xE)));
      for (int q = 0; q < Q; ++q) {
        detail::cell(dpc, q, SM::kM) = mul(detail::cell(dpc, q, SM::kM), scale);
        detail::cell(dpc, q, SM::kD) = mul(detail::cell(dpc, q, SM::kD), scale);
        detail::cell(dpc, q, SM::kI) = mul(detail::cell(dpc, q, SM::kI), scale);
      }
      ox.x(i, SM::kScale) = xE;
      ox.totscale = static_cast<float>(static_cast<double>(ox.totscale) + std::log(static_cast<double>(xE)));
      xE = 1.0f;
    } else {
      ox.x(i, SM::kScale) = 1.0f;
    }
    ox.x(i, SM::kE) = xE;
    ox.x(i, SM::kN) = xN;
    ox.x(i, SM::kJ) = xJ;
    ox.x(i, SM::kB) = xB;
    ox.x(i, SM::kC) = xC;
  }
  return static_cast<float>(static_cast<double>(ox.totscale) + std::log(static_cast<double>(xC * xf.c_move)));
}

// p7_Backward (keep_all_rows) or p7_BackwardParser, with the Forward matrix's scale factors.
inline void striped_backward(const StripedOddsProfile& om, const std::uint8_t* dsq, int L, const StripedMatrix& fwd,
                             StripedMatrix& bck, bool keep_all_rows) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using lanes4::add;
  using lanes4::mul;
  using lanes4::shift_down;
  using SM = StripedMatrix;
  const int Q = om.Q();
  const OddsSpecials& xf = om.xf();
  bck.resize(om.M(), Q, L, keep_all_rows);
  bck.has_own_scales = false;
  Lanes4* dpc = bck.row(L);
  float xJ = 0.0f, xB = 0.0f, xN = 0.0f;
  float xC = xf.c_move;
  float xE = xC * xf.e_move;
  Lanes4 xEv = lanes4::splat(xE);
  Lanes4 dcv{};
  for (int q = 0; q < Q; ++q) detail::cell(dpc, q, SM::kM) = detail::cell(dpc, q, SM::kD) = xEv;
  for (int q = 0; q < Q; ++q) detail::cell(dpc, q, SM::kI) = Lanes4{};
  // Row L's D->D paths: the first pass includes E from D itself, three more extend only the chain.
  Lanes4 dpv = shift_down(detail::cell(dpc, Q - 1, SM::kD));
  for (int q = Q - 1; q >= 0; --q) {
    dcv = mul(dpv, om.dd(q));
    detail::cell(dpc, q, SM::kD) = add(detail::cell(dpc, q, SM::kD), dcv);
    dpv = detail::cell(dpc, q, SM::kD);
  }
  for (int j = 1; j < 4; ++j) {
    dcv = shift_down(dcv);
    for (int q = Q - 1; q >= 0; --q) {
      dcv = mul(dcv, om.dd(q));
      detail::cell(dpc, q, SM::kD) = add(detail::cell(dpc, q, SM::kD), dcv);
    }
  }
  dcv = shift_down(detail::cell(dpc, 0, SM::kD));
  for (int q = Q - 1; q >= 0; --q) {
    detail::cell(dpc, q, SM::kM) = add(detail::cell(dpc, q, SM::kM), mul(dcv, om.transition(q, kOddsMD)));
    dcv = detail::cell(dpc, q, SM::kD);
  }
  const float scale_L = fwd.x(L, SM::kScale);
  if (scale_L > 1.0f) {
    xE = xE / scale_L;
    xN = xN / scale_L;
    xC = xC / scale_L;
    xJ = xJ / scale_L;
    xB = xB / scale_L;
    xEv = lanes4::splat(static_cast<float>(1.0 / static_cast<double>(scale_L)));
    for (int q = 0; q < Q; ++q) {
      detail::cell(dpc, q, SM::kM) = mul(detail::cell(dpc, q, SM::kM), xEv);
      detail::cell(dpc, q, SM::kD) = mul(detail::cell(dpc, q, SM::kD), xEv);
      detail::cell(dpc, q, SM::kI) = mul(detail::cell(dpc, q, SM::kI), xEv);
    }
  }
  bck.x(L, SM::kScale) = scale_L;
  bck.totscale = static_cast<float>(std::log(static_cast<double>(scale_L)));
  bck.x(L, SM::kE) = xE;
  bck.x(L, SM::kN) = xN;
  bck.x(L, SM::kJ) = xJ;
  bck.x(L, SM::kB) = xB;
  bck.x(L, SM::kC) = xC;

  for (int i = L - 1; i >= 1; --i) {
    dpc = bck.row(i);
    const Lanes4* dpp = bck.row(i + 1);
    const Lanes4* rp = om.match(dsq[i]);  // residue i+1
    // Transitions into node k+1, read from the next segment: lane r of vector 0 holds node r*Q+1.
    Lanes4 tmmv = shift_down(om.transition(0, kOddsMM));
    Lanes4 timv = shift_down(om.transition(0, kOddsIM));
    Lanes4 tdmv = shift_down(om.transition(0, kOddsDM));
    Lanes4 mpv = shift_down(mul(detail::cell(dpp, 0, SM::kM), rp[0]));
    Lanes4 xBv{};
    for (int q = Q - 1; q >= 0; --q) {
      const Lanes4 ipv = detail::cell(dpp, q, SM::kI);
      detail::cell(dpc, q, SM::kI) = add(mul(ipv, om.transition(q, kOddsII)), mul(mpv, timv));
      detail::cell(dpc, q, SM::kD) = mul(mpv, tdmv);
      const Lanes4 mcv = add(mul(ipv, om.transition(q, kOddsMI)), mul(mpv, tmmv));
      mpv = mul(detail::cell(dpp, q, SM::kM), rp[q]);
      detail::cell(dpc, q, SM::kM) = mcv;
      tdmv = om.transition(q, kOddsDM);
      timv = om.transition(q, kOddsIM);
      tmmv = om.transition(q, kOddsMM);
      xBv = add(xBv, mul(mpv, om.transition(q, kOddsBM)));
    }
    xB = lanes4::sum(xBv);
    xC = xC * xf.c_loop;
    xJ = (xB * xf.j_move) + (xJ * xf.j_loop);
    xN = (xB * xf.n_move) + (xN * xf.n_loop);
    xE = (xC * xf.e_move) + (xJ * xf.e_loop);
    xEv = lanes4::splat(xE);
    // {M,D}->E paths and the first D->D pass.
    dpv = shift_down(add(detail::cell(dpc, 0, SM::kD), xEv));
    for (int q = Q - 1; q >= 0; --q) {
      dcv = mul(dpv, om.dd(q));
      detail::cell(dpc, q, SM::kD) = add(detail::cell(dpc, q, SM::kD), add(dcv, xEv));
      dpv = detail::cell(dpc, q, SM::kD);
      detail::cell(dpc, q, SM::kM) = add(detail::cell(dpc, q, SM::kM), xEv);
    }
    for (int j = 1; j < 4; ++j) {
      dcv = shift_down(dcv);
      for (int q = Q - 1; q >= 0; --q) {
        dcv = mul(dcv, om.dd(q));
        detail::cell(dpc, q, SM::kD) = add(detail::cell(dpc, q, SM::kD), dcv);
      }
    }
    dcv = shift_down(detail::cell(dpc, 0, SM::kD));
    for (int q = Q - 1; q >= 0; --q) {
      detail::cell(dpc, q, SM::kM) = add(detail::cell(dpc, q, SM::kM), mul(dcv, om.transition(q, kOddsMD)));
      dcv = detail::cell(dpc, q, SM::kD);
    }
    // In rare cases the Forward's factors cannot contain the Backward values; HMMER then switches to its own.
    if (xB > 1.0e16f) bck.has_own_scales = true;
    if (bck.has_own_scales) {
      bck.x(i, SM::kScale) = (xB > 1.0e4f) ? xB : 1.0f;
    } else {
      bck.x(i, SM::kScale) = fwd.x(i, SM::kScale);
    }
    const float scale = bck.x(i, SM::kScale);
    if (scale > 1.0f) {
      xE /= scale;
      xN /= scale;
      xJ /= scale;
      xB /= scale;
      xC /= scale;
      const Lanes4 inverse = lanes4::splat(static_cast<float>(1.0 / static_cast<double>(scale)));
      for (int q = 0; q < Q; ++q) {
        detail::cell(dpc, q, SM::kM) = mul(detail::cell(dpc, q, SM::kM), inverse);
        detail::cell(dpc, q, SM::kD) = mul(detail::cell(dpc, q, SM::kD), inverse);
        detail::cell(dpc, q, SM::kI) = mul(detail::cell(dpc, q, SM::kI), inverse);
      }
      bck.totscale = static_cast<float>(static_cast<double>(bck.totscale) + std::log(static_cast<double>(scale)));
    }
    bck.x(i, SM::kE) = xE;
    bck.x(i, SM::kN) = xN;
    bck.x(i, SM::kJ) = xJ;
    bck.x(i, SM::kB) = xB;
    bck.x(i, SM::kC) = xC;
  }
  // Row 0: only N and B.
  const Lanes4* dpp = bck.row(L >= 1 ? 1 : 0);
  const Lanes4* rp = om.match(dsq[0]);
  Lanes4 xBv{};
  for (int q = 0; q < Q; ++q) {
    Lanes4 mpv = mul(detail::cell(dpp, q, SM::kM), rp[q]);
    mpv = mul(mpv, om.transition(q, kOddsBM));
    xBv = add(xBv, mpv);
  }
  xB = lanes4::sum(xBv);
  xN = (xB * xf.n_move) + (xN * xf.n_loop);
  bck.x(0, SM::kB) = xB;
  bck.x(0, SM::kC) = 0.0f;
  bck.x(0, SM::kJ) = 0.0f;
  bck.x(0, SM::kN) = xN;
  bck.x(0, SM::kE) = 0.0f;
  bck.x(0, SM::kScale) = 1.0f;
}

// p7_DomainDecoding: per residue i, the cumulative expected number of domain starts (B at i-1) and ends (E at i),
// and the probability that residue i is emitted by the core model rather than N, J or C.
struct DomainPosteriors {
  std::vector<float> btot, etot, mocc;  // 0..L
};

inline bool domain_posteriors(const StripedOddsProfile& om, const StripedMatrix& fwd, const StripedMatrix& bck,
                              DomainPosteriors& out) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using SM = StripedMatrix;
  const int L = fwd.L;
  const OddsSpecials& xf = om.xf();
  float scaleproduct = static_cast<float>(1.0 / static_cast<double>(bck.x(0, SM::kN)));
  out.btot.assign(static_cast<std::size_t>(L) + 1, 0.0f);
  out.etot.assign(static_cast<std::size_t>(L) + 1, 0.0f);
  out.mocc.assign(static_cast<std::size_t>(L) + 1, 0.0f);
  for (int i = 1; i <= L; ++i) {
    const auto u = static_cast<std::size_t>(i);
    out.btot[u] = out.btot[u - 1] +
                  (fwd.x(i - 1, SM::kB) * bck.x(i - 1, SM::kB) * fwd.x(i - 1, SM::kScale) * scaleproduct);
    if (bck.has_own_scales) scaleproduct *= fwd.x(i - 1, SM::kScale) / bck.x(i - 1, SM::kScale);
    out.etot[u] = out.etot[u - 1] + (fwd.x(i, SM::kE) * bck.x(i, SM::kE) * fwd.x(i, SM::kScale) * scaleproduct);
    float njcp = fwd.x(i - 1, SM::kN) * bck.x(i, SM::kN) * xf.n_loop * scaleproduct;
    njcp += fwd.x(i - 1, SM::kJ) * bck.x(i, SM::kJ) * xf.j_loop * scaleproduct;
    njcp += fwd.x(i - 1, SM::kC) * bck.x(i, SM::kC) * xf.c_loop * scaleproduct;
    out.mocc[u] = static_cast<float>(1.0 - static_cast<double>(njcp));
  }
  return !std::isinf(scaleproduct);
}

// p7_Decoding: posterior probabilities of M and I cells (D is 0) and of N, J, C emitting each residue.
// Returns false where HMMER's returns eslERANGE (the scale product overflowed).
inline bool posterior_decoding(const StripedOddsProfile& om, const StripedMatrix& fwd, const StripedMatrix& bck,
                               StripedMatrix& pp) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using lanes4::mul;
  using SM = StripedMatrix;
  const int L = fwd.L;
  const int Q = om.Q();
  const OddsSpecials& xf = om.xf();
  pp.resize(om.M(), Q, L, true);
  float scaleproduct = static_cast<float>(1.0 / static_cast<double>(bck.x(0, SM::kN)));
  Lanes4* ppv = pp.row(0);
  for (int q = 0; q < Q * 3; ++q) ppv[q] = Lanes4{};
  for (int s = 0; s < SM::kSpecials; ++s) pp.x(0, static_cast<SM::Special>(s)) = 0.0f;
  for (int i = 1; i <= L; ++i) {
    ppv = pp.row(i);
    const Lanes4* fv = fwd.row(i);
    const Lanes4* bv = bck.row(i);
    const Lanes4 totrv = lanes4::splat(scaleproduct * fwd.x(i, SM::kScale));
    for (int q = 0; q < Q; ++q) {
      detail::cell(ppv, q, SM::kM) = mul(mul(detail::cell(fv, q, SM::kM), detail::cell(bv, q, SM::kM)), totrv);
      detail::cell(ppv, q, SM::kD) = Lanes4{};
      detail::cell(ppv, q, SM::kI) = mul(mul(detail::cell(fv, q, SM::kI), detail::cell(bv, q, SM::kI)), totrv);
    }
    pp.x(i, SM::kE) = 0.0f;
    pp.x(i, SM::kN) = fwd.x(i - 1, SM::kN) * bck.x(i, SM::kN) * xf.n_loop * scaleproduct;
    pp.x(i, SM::kJ) = fwd.x(i - 1, SM::kJ) * bck.x(i, SM::kJ) * xf.j_loop * scaleproduct;
    pp.x(i, SM::kC) = fwd.x(i - 1, SM::kC) * bck.x(i, SM::kC) * xf.c_loop * scaleproduct;
    pp.x(i, SM::kB) = 0.0f;
    if (bck.has_own_scales) scaleproduct *= fwd.x(i, SM::kScale) / bck.x(i, SM::kScale);
  }
  return !std::isinf(scaleproduct);
}

// esl_abc_FAvgScVec, then the non-residue codes at 1: null2 odds for every code.
inline void complete_null2(const Plan7Alphabet& alphabet, std::vector<float>& null2) {
  CUDP_PLAN7_NO_FP_CONTRACT
  const int K = alphabet.K, Kp = alphabet.Kp;
  for (int x = K + 1; x <= Kp - 3; ++x) {
    float result = 0.0f;
    int count = 0;
    for (int y = 0; y < K; ++y) {
      if ((alphabet.degenerate[static_cast<std::size_t>(x)] >> y) & 1u) {
        result += null2[static_cast<std::size_t>(y)];
        ++count;
      }
    }
    null2[static_cast<std::size_t>(x)] = result / static_cast<float>(count);
  }
  null2[static_cast<std::size_t>(K)] = 1.0f;
  null2[static_cast<std::size_t>(Kp - 2)] = 1.0f;
  null2[static_cast<std::size_t>(Kp - 1)] = 1.0f;
}

// The null2 odds from expected state usage: M usage weighted by match odds, I usage and N/C/J usage by 1.
// usage[q*3 + M or I] are per-residue frequencies, flanks the N+C+J frequency.
inline void null2_from_usage(const StripedOddsProfile& om, const Plan7Alphabet& alphabet, const Lanes4* usage,
                             float flanks, std::vector<float>& null2) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using SM = StripedMatrix;
  null2.assign(static_cast<std::size_t>(alphabet.Kp), 0.0f);
  for (int x = 0; x < alphabet.K; ++x) {
    Lanes4 sv{};
    const Lanes4* rp = om.match(x);
    for (int q = 0; q < om.Q(); ++q) {
      sv = lanes4::add(sv, lanes4::mul(detail::cell(usage, q, SM::kM), rp[q]));
      sv = lanes4::add(sv, detail::cell(usage, q, SM::kI));
    }
    null2[static_cast<std::size_t>(x)] = lanes4::sum(sv) + flanks;
  }
  complete_null2(alphabet, null2);
}

// p7_Null2_ByExpectation over a posterior matrix of Ld = pp.L rows.
inline void null2_by_expectation(const StripedOddsProfile& om, const Plan7Alphabet& alphabet, const StripedMatrix& pp,
                                 std::vector<float>& null2) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using SM = StripedMatrix;
  const int Q = om.Q();
  const int Ld = pp.L;
  std::vector<Lanes4> usage(pp.row(1), pp.row(1) + Q * 3);
  float xN = pp.x(1, SM::kN), xC = pp.x(1, SM::kC), xJ = pp.x(1, SM::kJ);
  for (int i = 2; i <= Ld; ++i) {
    const Lanes4* row = pp.row(i);
    for (int q = 0; q < Q; ++q) {
      detail::cell(usage.data(), q, SM::kM) = lanes4::add(detail::cell(row, q, SM::kM), detail::cell(usage.data(), q, SM::kM));
      detail::cell(usage.data(), q, SM::kI) = lanes4::add(detail::cell(row, q, SM::kI), detail::cell(usage.data(), q, SM::kI));
    }
    xN += pp.x(i, SM::kN);
    xC += pp.x(i, SM::kC);
    xJ += pp.x(i, SM::kJ);
  }
  const float norm = static_cast<float>(1.0 / static_cast<double>(static_cast<float>(Ld)));
  const Lanes4 normv = lanes4::splat(norm);
  for (int q = 0; q < Q; ++q) {
    detail::cell(usage.data(), q, SM::kM) = lanes4::mul(detail::cell(usage.data(), q, SM::kM), normv);
    detail::cell(usage.data(), q, SM::kI) = lanes4::mul(detail::cell(usage.data(), q, SM::kI), normv);
  }
  xN *= norm;
  xC *= norm;
  xJ *= norm;
  const float flanks = xN + xC + xJ;
  null2_from_usage(om, alphabet, usage.data(), flanks, null2);
}

// A domain of a sampled or optimal-accuracy trace: first and last match state (sequence and model coordinates)
// and, for null2 by trace, how often each node emitted (HMMER's p7_Null2_ByTrace counts insert emissions in the
// match cell of their node, and so does this).
struct TraceDomain {
  int sq_from = 0, sq_to = 0, hmm_from = 0, hmm_to = 0;
  int emitted = 0;               // residues emitted by M and I states between B and E
  std::vector<int> node_counts;  // per node 1..M (index k)
};

// Easel's "fast" generator (esl_randomness_CreateFast): Knuth's 32-bit linear congruential generator, seeded
// through esl_rnd_mix3.
class EaselFastRandom {
 public:
  explicit EaselFastRandom(std::uint32_t seed = 42) { init(seed); }
  void init(std::uint32_t seed) {
    seed_ = seed;
    x_ = mix3(seed, 87654321u, 12345678u);
    if (x_ == 0) x_ = 42;
  }
  std::uint32_t seed() const { return seed_; }
  // esl_random: uniform on [0, 1).
  double next() {
    x_ = x_ * 69069u + 1u;
    return static_cast<double>(x_) / 4294967296.0;
  }
  // esl_rnd_FChoose after esl_vec_FNorm, as the stochastic traceback uses them.
  int choose_normalized(float* p, int n) {
    CUDP_PLAN7_NO_FP_CONTRACT
    const float total = detail::easel_sum(p, static_cast<std::size_t>(n));
    if (total != 0.0f) {
      for (int i = 0; i < n; ++i) p[i] /= total;
    } else {
      for (int i = 0; i < n; ++i) p[i] = static_cast<float>(1.0 / static_cast<double>(n));
    }
    double norm = 0.0, sum = 0.0;
    const double roll = next();
    for (int i = 0; i < n; ++i) norm += p[i];
    for (int i = 0; i < n; ++i) {
      sum += static_cast<double>(p[i]);
      if (roll < sum / norm) return i;
    }
    return -1;
  }

 private:
  static std::uint32_t mix3(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    a -= b; a -= c; a ^= (c >> 13);
    b -= c; b -= a; b ^= (a << 8);
    c -= a; c -= b; c ^= (b >> 13);
    a -= b; a -= c; a ^= (c >> 12);
    b -= c; b -= a; b ^= (a << 16);
    c -= a; c -= b; c ^= (b >> 5);
    a -= b; a -= c; a ^= (c >> 3);
    b -= c; b -= a; b ^= (a << 10);
    c -= a; c -= b; c ^= (b >> 15);
    return c;
  }
  std::uint32_t seed_ = 42, x_ = 0;
};

enum class TraceState { S, N, B, M, D, I, E, C, J, T };

// p7_StochasticTrace on a full Forward matrix of dsq[0..L-1]; the domains in sequence order. Returns false where
// HMMER's fails (a choice among all-zero paths).
inline bool stochastic_trace(EaselFastRandom& rng, const StripedOddsProfile& om, const StripedMatrix& ox, int L,
                             std::vector<TraceDomain>& domains) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using SM = StripedMatrix;
  using TS = TraceState;
  const int Q = om.Q();
  const OddsSpecials& xf = om.xf();
  domains.clear();
  auto value = [&](int i, int k, SM::Cell c) { return k >= 1 ? ox.node(i, k, c) : 0.0f; };
  // Transition of node k's lane (q, r) from the striped vectors.
  auto t_into = [&](int k, OddsTransition t) { return om.transition(om.segment_of(k), t).v[om.lane_of(k)]; };
  auto t_dd = [&](int k) { return om.dd(om.segment_of(k)).v[om.lane_of(k)]; };
  int i = L, k = 0;
  TS s0 = TS::C;
  TraceDomain current;
  bool in_domain = false;
  while (s0 != TS::S) {
    TS s1 = TS::S;
    switch (s0) {
      case TS::M: {
        // From B(i-1), M(i-1,k-1), I(i-1,k-1), D(i-1,k-1).
        float path[4] = {ox.x(i - 1, SM::kB) * t_into(k, kOddsBM), value(i - 1, k - 1, SM::kM) * t_into(k, kOddsMM),
                         value(i - 1, k - 1, SM::kI) * t_into(k, kOddsIM), value(i - 1, k - 1, SM::kD) * t_into(k, kOddsDM)};
        const TS states[4] = {TS::B, TS::M, TS::I, TS::D};
        const int c = rng.choose_normalized(path, 4);
        if (c < 0) return false;
        s1 = states[c];
        --k;
        --i;
        break;
      }
      case TS::D: {
        float path[2] = {k > 1 ? value(i, k - 1, SM::kM) * t_into(k - 1, kOddsMD) : 0.0f,
                         k > 1 ? value(i, k - 1, SM::kD) * t_dd(k - 1) : 0.0f};
        const TS states[2] = {TS::M, TS::D};
        const int c = rng.choose_normalized(path, 2);
        if (c < 0) return false;
        s1 = states[c];
        --k;
        break;
      }
      case TS::I: {
        float path[2] = {value(i - 1, k, SM::kM) * t_into(k, kOddsMI), value(i - 1, k, SM::kI) * t_into(k, kOddsII)};
        const TS states[2] = {TS::M, TS::I};
        const int c = rng.choose_normalized(path, 2);
        if (c < 0) return false;
        s1 = states[c];
        --i;
        break;
      }
      case TS::N:
        s1 = i == 0 ? TS::S : TS::N;
        break;
      case TS::C: {
        float path[2] = {ox.x(i - 1, SM::kC) * xf.c_loop, ox.x(i, SM::kE) * xf.e_move * ox.x(i, SM::kScale)};
        const TS states[2] = {TS::C, TS::E};
        const int c = rng.choose_normalized(path, 2);
        if (c < 0) return false;
        s1 = states[c];
        break;
      }
      case TS::J: {
        float path[2] = {ox.x(i - 1, SM::kJ) * xf.j_loop, ox.x(i, SM::kE) * xf.e_loop * ox.x(i, SM::kScale)};
        const TS states[2] = {TS::J, TS::E};
        const int c = rng.choose_normalized(path, 2);
        if (c < 0) return false;
        s1 = states[c];
        break;
      }
      case TS::E: {
        // select_e: scan M then D per striped vector, lanes in order, accumulating in double against one deviate
        // (HMMER 3.3's version; the cells are scaled by E's reciprocal in single precision first).
        double sum = 0.0;
        const double roll = rng.next();
        const double norm = 1.0 / static_cast<double>(ox.x(i, SM::kE));
        const Lanes4 normv = lanes4::splat(static_cast<float>(norm));
        const Lanes4* row = ox.row(i);
        bool found = false;
        for (int pass = 0; pass < 64 && !found; ++pass) {
          for (int q = 0; q < Q && !found; ++q) {
            const Lanes4 mv = lanes4::mul(detail::cell(row, q, SM::kM), normv);
            for (int r = 0; r < 4 && !found; ++r) {
              sum += static_cast<double>(mv.v[r]);
              if (roll < sum) {
                k = r * Q + q + 1;
                s1 = TS::M;
                found = true;
              }
            }
            if (found) break;
            const Lanes4 dv = lanes4::mul(detail::cell(row, q, SM::kD), normv);
            for (int r = 0; r < 4 && !found; ++r) {
              sum += static_cast<double>(dv.v[r]);
              if (roll < sum) {
                k = r * Q + q + 1;
                s1 = TS::D;
                found = true;
              }
            }
          }
          // HMMER loops until the deviate is reached; a row that sums to less than ~1 can never reach it.
          if (!found && sum < 0.99) return false;
        }
        if (!found) return false;
        break;
      }
      case TS::B: {
        float path[2] = {ox.x(i, SM::kN) * xf.n_move, ox.x(i, SM::kJ) * xf.j_move};
        const TS states[2] = {TS::N, TS::J};
        const int c = rng.choose_normalized(path, 2);
        if (c < 0) return false;
        s1 = states[c];
        break;
      }
      default:
        return false;
    }
    // Record the domain structure as p7_trace_Index and p7_Null2_ByTrace would read it (we walk backwards).
    if (s1 == TS::E) {
      current = TraceDomain{};
      current.node_counts.assign(static_cast<std::size_t>(om.M()) + 1, 0);
      in_domain = true;
    } else if (in_domain && (s1 == TS::M || s1 == TS::I)) {
      if (s1 == TS::M) {
        if (current.sq_to == 0) {
          current.sq_to = i;
          current.hmm_to = k;
        }
        current.sq_from = i;
        current.hmm_from = k;
      }
      current.emitted += 1;
      current.node_counts[static_cast<std::size_t>(k)] += 1;
    } else if (in_domain && s1 == TS::B) {
      domains.push_back(std::move(current));
      in_domain = false;
    }
    if ((s1 == TS::N || s1 == TS::J || s1 == TS::C) && s1 == s0) --i;
    s0 = s1;
  }
  std::reverse(domains.begin(), domains.end());
  return true;
}

// p7_Null2_ByTrace for one sampled domain.
inline void null2_by_trace(const StripedOddsProfile& om, const Plan7Alphabet& alphabet, const TraceDomain& domain,
                           std::vector<Lanes4>& usage, std::vector<float>& null2) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using SM = StripedMatrix;
  const int Q = om.Q();
  usage.assign(static_cast<std::size_t>(Q) * 3, Lanes4{});
  for (int k = 1; k <= om.M(); ++k) {
    const int count = domain.node_counts[static_cast<std::size_t>(k)];
    if (count == 0) continue;
    detail::cell(usage.data(), om.segment_of(k), SM::kM).v[om.lane_of(k)] = static_cast<float>(count);
  }
  const float norm = static_cast<float>(1.0 / static_cast<double>(static_cast<float>(domain.emitted)));
  const Lanes4 normv = lanes4::splat(norm);
  for (int q = 0; q < Q; ++q) {
    detail::cell(usage.data(), q, SM::kM) = lanes4::mul(detail::cell(usage.data(), q, SM::kM), normv);
    detail::cell(usage.data(), q, SM::kI) = lanes4::mul(detail::cell(usage.data(), q, SM::kI), normv);
  }
  null2_from_usage(om, alphabet, usage.data(), 0.0f, null2);
}

// p7_OptimalAccuracy + p7_OATrace on a posterior matrix: the alignment maximising the expected number of correctly
// aligned residues. Returns that expectation (HMMER's oasc) and the first and last match states' coordinates,
// what p7_alidisplay_Create shows; envelopes are aligned in unihit mode, so the trace holds one domain.
struct OptimalAccuracyResult {
  float expected_correct = 0;
  int sq_from = 0, sq_to = 0, hmm_from = 0, hmm_to = 0;
  bool ok = false;
};

inline OptimalAccuracyResult optimal_accuracy(const StripedOddsProfile& om, const StripedMatrix& pp, StripedMatrix& ox) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using SM = StripedMatrix;
  const int Q = om.Q();
  const int L = pp.L;
  const OddsSpecials& xf = om.xf();
  const float ninf = -std::numeric_limits<float>::infinity();
  const Lanes4 infv = lanes4::splat(ninf);
  auto allowed = [](const Lanes4& t, const Lanes4& v) {
    Lanes4 out;
    for (int r = 0; r < 4; ++r) out.v[r] = t.v[r] > 0.0f ? v.v[r] : 0.0f;
    return out;
  };
  auto vmax = [](const Lanes4& a, const Lanes4& b) {
    Lanes4 out;
    for (int r = 0; r < 4; ++r) out.v[r] = a.v[r] > b.v[r] ? a.v[r] : b.v[r];
    return out;
  };
  auto shift_up_inf = [&](const Lanes4& a) { return Lanes4{{ninf, a.v[0], a.v[1], a.v[2]}}; };
  ox.resize(om.M(), Q, L, true);
  Lanes4* dpc = ox.row(0);
  for (int q = 0; q < Q; ++q) detail::cell(dpc, q, SM::kM) = detail::cell(dpc, q, SM::kI) = detail::cell(dpc, q, SM::kD) = infv;
  ox.x(0, SM::kE) = ninf;
  ox.x(0, SM::kN) = 0.0f;
  ox.x(0, SM::kJ) = ninf;
  ox.x(0, SM::kB) = 0.0f;
  ox.x(0, SM::kC) = ninf;
  for (int i = 1; i <= L; ++i) {
    const Lanes4* dpp = ox.row(i - 1);
    dpc = ox.row(i);
    const Lanes4* ppr = pp.row(i);
    Lanes4 dcv = infv, xEv = infv;
    const Lanes4 xBv = lanes4::splat(ox.x(i - 1, SM::kB));
    Lanes4 mpv = shift_up_inf(detail::cell(dpp, Q - 1, SM::kM));
    Lanes4 dpv = shift_up_inf(detail::cell(dpp, Q - 1, SM::kD));
    Lanes4 ipv = shift_up_inf(detail::cell(dpp, Q - 1, SM::kI));
    for (int q = 0; q < Q; ++q) {
      Lanes4 sv = allowed(om.transition(q, kOddsBM), xBv);
      sv = vmax(sv, allowed(om.transition(q, kOddsMM), mpv));
      sv = vmax(sv, allowed(om.transition(q, kOddsIM), dpv));  // HMMER pairs IM with D here and DM with I
      sv = vmax(sv, allowed(om.transition(q, kOddsDM), ipv));
      sv = lanes4::add(sv, detail::cell(ppr, q, SM::kM));
      xEv = vmax(xEv, sv);
      mpv = detail::cell(dpp, q, SM::kM);
      dpv = detail::cell(dpp, q, SM::kD);
      ipv = detail::cell(dpp, q, SM::kI);
      detail::cell(dpc, q, SM::kM) = sv;
      detail::cell(dpc, q, SM::kD) = dcv;
      dcv = allowed(om.transition(q, kOddsMD), sv);
      sv = allowed(om.transition(q, kOddsMI), mpv);
      sv = vmax(sv, allowed(om.transition(q, kOddsII), ipv));
      detail::cell(dpc, q, SM::kI) = lanes4::add(sv, detail::cell(ppr, q, SM::kI));
    }
    dcv = shift_up_inf(dcv);
    for (int q = 0; q < Q; ++q) {
      detail::cell(dpc, q, SM::kD) = vmax(dcv, detail::cell(dpc, q, SM::kD));
      dcv = allowed(om.dd(q), detail::cell(dpc, q, SM::kD));
    }
    for (int j = 1; j < 4; ++j) {
      dcv = shift_up_inf(dcv);
      for (int q = 0; q < Q; ++q) {
        detail::cell(dpc, q, SM::kD) = vmax(dcv, detail::cell(dpc, q, SM::kD));
        dcv = allowed(om.dd(q), dcv);
      }
    }
    for (int q = 0; q < Q; ++q) xEv = vmax(xEv, detail::cell(dpc, q, SM::kD));
    float e = xEv.v[0];
    for (int r = 1; r < 4; ++r) e = std::max(e, xEv.v[r]);
    ox.x(i, SM::kE) = e;
    float t1 = xf.j_loop == 0.0f ? 0.0f : ox.x(i - 1, SM::kJ) + pp.x(i, SM::kJ);
    float t2 = xf.e_loop == 0.0f ? 0.0f : ox.x(i, SM::kE);
    ox.x(i, SM::kJ) = t1 > t2 ? t1 : t2;
    t1 = xf.c_loop == 0.0f ? 0.0f : ox.x(i - 1, SM::kC) + pp.x(i, SM::kC);
    t2 = xf.e_move == 0.0f ? 0.0f : ox.x(i, SM::kE);
    ox.x(i, SM::kC) = t1 > t2 ? t1 : t2;
    ox.x(i, SM::kN) = xf.n_loop == 0.0f ? 0.0f : ox.x(i - 1, SM::kN) + pp.x(i, SM::kN);
    t1 = xf.n_move == 0.0f ? 0.0f : ox.x(i, SM::kN);
    t2 = xf.j_move == 0.0f ? 0.0f : ox.x(i, SM::kJ);
    ox.x(i, SM::kB) = t1 > t2 ? t1 : t2;
  }
  OptimalAccuracyResult result;
  result.expected_correct = ox.x(L, SM::kC);

  // Traceback (p7_OATrace), keeping only what the alignment display's coordinates need: the first and last M.
  using TS = TraceState;
  auto value = [&](int row, int node, SM::Cell c) { return node >= 1 ? ox.node(row, node, c) : 0.0f; };
  auto t_into = [&](int node, OddsTransition t) { return om.transition(om.segment_of(node), t).v[om.lane_of(node)]; };
  int i = L, k = 0;
  TS s0 = TS::C;
  bool seen_m = false;
  for (int guard = 0; s0 != TS::S; ++guard) {
    if (guard > 4 * (L + 2) * (om.M() + 2)) return result;
    TS s1 = TS::S;
    switch (s0) {
      case TS::M: {
        float path[4];
        path[3] = t_into(k, kOddsBM) == 0.0f ? ninf : ox.x(i - 1, SM::kB);
        path[0] = t_into(k, kOddsMM) == 0.0f ? ninf : value(i - 1, k - 1, SM::kM);
        path[1] = t_into(k, kOddsIM) == 0.0f ? ninf : value(i - 1, k - 1, SM::kI);
        path[2] = t_into(k, kOddsDM) == 0.0f ? ninf : value(i - 1, k - 1, SM::kD);
        const TS states[4] = {TS::M, TS::I, TS::D, TS::B};
        int best = 0;
        for (int c = 1; c < 4; ++c) if (path[c] > path[best]) best = c;
        s1 = states[best];
        --k;
        --i;
        break;
      }
      case TS::D: {
        const float p0 = k > 1 && t_into(k - 1, kOddsMD) != 0.0f ? value(i, k - 1, SM::kM) : ninf;
        const float p1 = k > 1 && om.dd(om.segment_of(k - 1)).v[om.lane_of(k - 1)] != 0.0f ? value(i, k - 1, SM::kD) : ninf;
        s1 = p0 >= p1 ? TS::M : TS::D;
        --k;
        break;
      }
      case TS::I: {
        const float p0 = t_into(k, kOddsMI) == 0.0f ? ninf : value(i - 1, k, SM::kM);
        const float p1 = t_into(k, kOddsII) == 0.0f ? ninf : value(i - 1, k, SM::kI);
        s1 = p0 >= p1 ? TS::M : TS::I;
        --i;
        break;
      }
      case TS::N:
        s1 = i == 0 ? TS::S : TS::N;
        break;
      case TS::C: {
        const float p0 = xf.c_loop == 0.0f ? ninf : ox.x(i - 1, SM::kC) + pp.x(i, SM::kC);
        const float p1 = xf.e_move == 0.0f ? ninf : ox.x(i, SM::kE);
        s1 = p0 > p1 ? TS::C : TS::E;
        break;
      }
      case TS::J: {
        const float p0 = xf.j_loop == 0.0f ? ninf : ox.x(i - 1, SM::kJ) + pp.x(i, SM::kJ);
        const float p1 = xf.e_loop == 0.0f ? ninf : ox.x(i, SM::kE);
        s1 = p0 > p1 ? TS::J : TS::E;
        break;
      }
      case TS::E: {
        float max = ninf;
        TS smax = TS::M;
        int kmax = 0;
        const Lanes4* row = ox.row(i);
        for (int q = 0; q < Q; ++q) {
          for (int r = 0; r < 4; ++r) {
            if (detail::cell(row, q, SM::kM).v[r] >= max) { max = detail::cell(row, q, SM::kM).v[r]; smax = TS::M; kmax = r * Q + q + 1; }
          }
          for (int r = 0; r < 4; ++r) {
            if (detail::cell(row, q, SM::kD).v[r] > max) { max = detail::cell(row, q, SM::kD).v[r]; smax = TS::D; kmax = r * Q + q + 1; }
          }
        }
        k = kmax;
        s1 = smax;
        break;
      }
      case TS::B: {
        const float p0 = xf.n_move == 0.0f ? ninf : ox.x(i, SM::kN);
        const float p1 = xf.j_move == 0.0f ? ninf : ox.x(i, SM::kJ);
        s1 = p0 > p1 ? TS::N : TS::J;
        break;
      }
      default:
        return result;
    }
    if (s1 == TS::M) {
      // Walking backwards: the first M met is the alignment's end, the last its start.
      if (!seen_m) {
        result.sq_to = i;
        result.hmm_to = k;
        seen_m = true;
      }
      result.sq_from = i;
      result.hmm_from = k;
    }
    if ((s1 == TS::N || s1 == TS::J || s1 == TS::C) && s1 == s0) --i;
    s0 = s1;
  }
  result.ok = seen_m;
  return result;
}

}  // namespace cudp::bio

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
