#pragma once
// HMMER 3.3.2's probability-space dynamic programming after the filters, bit for bit: Forward and Backward with
// sparse rescaling (fwdback.c), posterior decoding of states and of domain boundaries (decoding.c) and null2 by
// expectation (null2.c), on the striped layout of plan7_odds_profile.hpp. Tracebacks through these matrices are
// in plan7_traces.hpp.
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

namespace cudp::hmmer {

// HMMER's P7_OMX: rows 0..L of striped M, D, I vectors and the special states with each row's scale factor.
struct StripedMatrix {
  enum Cell { kM = 0, kD = 1, kI = 2 };
  enum Special { kE = kSpecialE, kN, kJ, kB, kC, kScale, kSpecials };

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

static_assert(int{StripedMatrix::kScale} == int{kSpecialScale} && int{StripedMatrix::kSpecials} == int{kSpecialCount},
              "ParserSpecials rows are StripedMatrix special rows");

namespace detail {
inline Lanes4& cell(Lanes4* row, int q, StripedMatrix::Cell c) { return row[q * 3 + c]; }
inline const Lanes4& cell(const Lanes4* row, int q, StripedMatrix::Cell c) { return row[q * 3 + c]; }

// The end of a Backward row after its first D->D pass (dcv: that pass's last value): the D->D chains extended three
// more times across the striped vectors, then M picks up M->D into the finished D's, in p7_Backward's order.
inline void finish_backward_deletes(const StripedOddsProfile& om, Lanes4* dpc, Lanes4 dcv) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using lanes4::add;
  using lanes4::mul;
  using lanes4::shift_down;
  using SM = StripedMatrix;
  const int Q = om.Q();
  // Once the carried value is 0 in every lane it adds nothing and stays 0: the rest of the pass and the later
  // passes would leave the D's as they are (exact, and most of a long model's passes).
  for (int j = 1; j < 4 && !lanes4::all_zero(dcv); ++j) {
    dcv = shift_down(dcv);
    for (int q = Q - 1; q >= 0; --q) {
      dcv = mul(dcv, om.dd(q));
      cell(dpc, q, SM::kD) = add(cell(dpc, q, SM::kD), dcv);
      if ((q & 7) == 0 && lanes4::all_zero(dcv)) break;
    }
  }
  dcv = shift_down(cell(dpc, 0, SM::kD));
  for (int q = Q - 1; q >= 0; --q) {
    cell(dpc, q, SM::kM) = add(cell(dpc, q, SM::kM), mul(dcv, om.transition(q, kOddsMD)));
    dcv = cell(dpc, q, SM::kD);
  }
}

}  // namespace detail

// Makes `ox` the parser matrix whose special rows are `rows` (see ParserSpecials), with the log of its scale
// factors summed as striped_forward (forward) or striped_backward sums them. The cells are left as they were:
// nothing downstream of a parser reads them.
inline void adopt_parser_specials(StripedMatrix& ox, int M, int Q, int L, const float* rows, bool forward,
                                  bool own_scales) {
  using SM = StripedMatrix;
  ox.M = M;
  ox.Q = Q;
  ox.L = L;
  ox.full = false;
  ox.has_own_scales = forward || own_scales;
  ox.specials.assign(rows, rows + (static_cast<std::size_t>(L) + 1) * SM::kSpecials);
  const auto add_log = [&ox](float scale) {
    ox.totscale = static_cast<float>(static_cast<double>(ox.totscale) + std::log(static_cast<double>(scale)));
  };
  if (forward) {
    ox.totscale = 0.0f;
    for (int i = 1; i <= L; ++i)
      if (ox.x(i, SM::kScale) != 1.0f) add_log(ox.x(i, SM::kScale));
  } else {
    ox.totscale = static_cast<float>(std::log(static_cast<double>(ox.x(L, SM::kScale))));
    for (int i = L - 1; i >= 1; --i)
      if (ox.x(i, SM::kScale) > 1.0f) add_log(ox.x(i, SM::kScale));
  }
}

// The Forward score in nats of a forward parser matrix (what striped_forward returns), with the length model it was
// computed in.
inline float forward_parser_score(const OddsSpecials& xf, const StripedMatrix& fwd) {
  CUDP_PLAN7_NO_FP_CONTRACT
  const float end = fwd.x(fwd.L, StripedMatrix::kC) * xf.c_move;
  return static_cast<float>(static_cast<double>(fwd.totscale) + std::log(static_cast<double>(end)));
}
inline float forward_parser_score(const StripedOddsProfile& om, const StripedMatrix& fwd) {
  return forward_parser_score(om.xf(), fwd);
}

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
  for (int q = 0; q < Q; ++q)
    detail::cell(dpc, q, SM::kM) = detail::cell(dpc, q, SM::kI) = detail::cell(dpc, q, SM::kD) = Lanes4{};
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
    // E sums the finished D's after M's. The last pass leaves every D final, so each pass also sums what it
    // writes, in the same order as a separate loop would: the sum of the last pass run is that loop's, and its
    // serial chain of additions overlaps the pass's own chain. Once the carried value is 0 in every lane it adds
    // nothing and stays 0, so the rest of the pass and every later pass would leave the D's as they are: the pass
    // stops carrying there (only its sum goes on), and it is the last. Exact, and most of a long model's passes.
    const Lanes4 xEv_from_m = xEv;
    const bool stop_unchanged = om.M() >= 100;  // smaller models always take all three passes
    for (int j = 1; j < 4; ++j) {
      dcv = shift_up(dcv);
      xEv = xEv_from_m;
      bool changed = false;
      int q = 0;
      while (q < Q) {
        const Lanes4 sv = add(dcv, detail::cell(dpc, q, SM::kD));
        changed = changed || lanes4::any_greater(sv, detail::cell(dpc, q, SM::kD));
        detail::cell(dpc, q, SM::kD) = sv;
        xEv = add(sv, xEv);
        dcv = mul(dcv, om.dd(q));
        if ((++q & 7) == 0 && lanes4::all_zero(dcv)) break;
      }
      if (q < Q || lanes4::all_zero(dcv)) {
        for (; q < Q; ++q) xEv = add(detail::cell(dpc, q, SM::kD), xEv);
        break;
      }
      if (stop_unchanged && !changed) break;
    }
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
  return forward_parser_score(om, ox);
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
  detail::finish_backward_deletes(om, dpc, dcv);
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
    detail::finish_backward_deletes(om, dpc, dcv);
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
    out.btot[u] =
        out.btot[u - 1] + (fwd.x(i - 1, SM::kB) * bck.x(i - 1, SM::kB) * fwd.x(i - 1, SM::kScale) * scaleproduct);
    if (bck.has_own_scales) scaleproduct *= fwd.x(i - 1, SM::kScale) / bck.x(i - 1, SM::kScale);
    out.etot[u] = out.etot[u - 1] + (fwd.x(i, SM::kE) * bck.x(i, SM::kE) * fwd.x(i, SM::kScale) * scaleproduct);
    float njcp = fwd.x(i - 1, SM::kN) * bck.x(i, SM::kN) * xf.n_loop * scaleproduct;
    njcp += fwd.x(i - 1, SM::kJ) * bck.x(i, SM::kJ) * xf.j_loop * scaleproduct;
    njcp += fwd.x(i - 1, SM::kC) * bck.x(i, SM::kC) * xf.c_loop * scaleproduct;
    out.mocc[u] = static_cast<float>(1.0 - static_cast<double>(njcp));
  }
  return !std::isinf(scaleproduct);
}

// p7_Decoding's numbers per row: the factor that turns row i's Forward-times-Backward cells into posteriors
// (factors[i], rows 1..L) and the posterior special states (`specials`, rows 0..L laid out as StripedMatrix's: N, J
// and C, E and B 0, the scale slots untouched). `specials` may be bck's own: each is read before it is written.
// Returns false where HMMER's returns eslERANGE (the scale product overflowed).
inline bool decoding_rows(const StripedOddsProfile& om, const StripedMatrix& fwd, const StripedMatrix& bck,
                          std::vector<float>& factors, float* specials) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using SM = StripedMatrix;
  const int L = fwd.L;
  const OddsSpecials& xf = om.xf();
  auto x = [specials](int i, SM::Special s) -> float& {
    return specials[static_cast<std::size_t>(i) * SM::kSpecials + s];
  };
  factors.resize(static_cast<std::size_t>(L) + 1);
  float scaleproduct = static_cast<float>(1.0 / static_cast<double>(bck.x(0, SM::kN)));
  for (int s = 0; s < SM::kSpecials; ++s) x(0, static_cast<SM::Special>(s)) = 0.0f;
  for (int i = 1; i <= L; ++i) {
    factors[static_cast<std::size_t>(i)] = scaleproduct * fwd.x(i, SM::kScale);
    x(i, SM::kE) = 0.0f;
    x(i, SM::kN) = fwd.x(i - 1, SM::kN) * bck.x(i, SM::kN) * xf.n_loop * scaleproduct;
    x(i, SM::kJ) = fwd.x(i - 1, SM::kJ) * bck.x(i, SM::kJ) * xf.j_loop * scaleproduct;
    x(i, SM::kC) = fwd.x(i - 1, SM::kC) * bck.x(i, SM::kC) * xf.c_loop * scaleproduct;
    x(i, SM::kB) = 0.0f;
    if (bck.has_own_scales) scaleproduct *= fwd.x(i, SM::kScale) / bck.x(i, SM::kScale);
  }
  return !std::isinf(scaleproduct);
}

// Row i's posterior M and I cells (D is 0) into `pp`, from the Forward and Backward rows and decoding_rows' factor.
inline void decode_row(int Q, const Lanes4* fv, const Lanes4* bv, float factor, Lanes4* ppv) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using lanes4::mul;
  using SM = StripedMatrix;
  const Lanes4 totrv = lanes4::splat(factor);
  for (int q = 0; q < Q; ++q) {
    detail::cell(ppv, q, SM::kM) = mul(mul(detail::cell(fv, q, SM::kM), detail::cell(bv, q, SM::kM)), totrv);
    detail::cell(ppv, q, SM::kD) = Lanes4{};
    detail::cell(ppv, q, SM::kI) = mul(mul(detail::cell(fv, q, SM::kI), detail::cell(bv, q, SM::kI)), totrv);
  }
}

// p7_Decoding: posterior probabilities of M and I cells (D is 0) and of N, J, C emitting each residue; `pp` may
// be `bck`, decoded in place as HMMER does.
// Returns false where HMMER's returns eslERANGE (the scale product overflowed).
inline bool posterior_decoding(const StripedOddsProfile& om, const StripedMatrix& fwd, const StripedMatrix& bck,
                               StripedMatrix& pp) {
  const int L = fwd.L;
  const int Q = om.Q();
  if (&pp != &bck) pp.resize(om.M(), Q, L, true);  // else decoded in place, each cell read before it is written
  std::vector<float> factors;
  const bool finite = decoding_rows(om, fwd, bck, factors, pp.specials.data());
  Lanes4* ppv = pp.row(0);
  for (int q = 0; q < Q * 3; ++q) ppv[q] = Lanes4{};
  for (int i = 1; i <= L; ++i) decode_row(Q, fwd.row(i), bck.row(i), factors[static_cast<std::size_t>(i)], pp.row(i));
  return finite;
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

// p7_Null2_ByExpectation's sums over an envelope's posterior rows, in its order: row 1's values, then rows 2..Ld
// added one by one (M and I cells per vector, and the N, C and J totals); finish() turns them into null2 odds.
class ExpectedUsage {
 public:
  void add_row(int Q, const Lanes4* row, float n, float c, float j) {
    CUDP_PLAN7_NO_FP_CONTRACT
    using SM = StripedMatrix;
    if (rows_ == 0) {
      usage_.assign(row, row + Q * 3);
      xN_ = n;
      xC_ = c;
      xJ_ = j;
    } else {
      for (int q = 0; q < Q; ++q) {
        detail::cell(usage_.data(), q, SM::kM) =
            lanes4::add(detail::cell(row, q, SM::kM), detail::cell(usage_.data(), q, SM::kM));
        detail::cell(usage_.data(), q, SM::kI) =
            lanes4::add(detail::cell(row, q, SM::kI), detail::cell(usage_.data(), q, SM::kI));
      }
      xN_ += n;
      xC_ += c;
      xJ_ += j;
    }
    ++rows_;
  }

  // Takes sums made elsewhere (a device: EnvelopeBatch::usage) as if `rows` rows had been added: Q vectors of
  // (M, I) x 4 lanes, then the N, C and J totals.
  void adopt(int Q, const float* sums, int rows) {
    using SM = StripedMatrix;
    usage_.assign(static_cast<std::size_t>(Q) * 3, Lanes4{});
    for (int q = 0; q < Q; ++q) {
      for (int r = 0; r < 4; ++r) {
        detail::cell(usage_.data(), q, SM::kM).v[r] = sums[q * 8 + r];
        detail::cell(usage_.data(), q, SM::kI).v[r] = sums[q * 8 + 4 + r];
      }
    }
    xN_ = sums[Q * 8];
    xC_ = sums[Q * 8 + 1];
    xJ_ = sums[Q * 8 + 2];
    rows_ = rows;
  }

  // The null2 odds for every code, from the rows added so far (at least one); starts over afterwards.
  void finish(const StripedOddsProfile& om, const Plan7Alphabet& alphabet, std::vector<float>& null2) {
    CUDP_PLAN7_NO_FP_CONTRACT
    using SM = StripedMatrix;
    const float norm = static_cast<float>(1.0 / static_cast<double>(static_cast<float>(rows_)));
    const Lanes4 normv = lanes4::splat(norm);
    for (int q = 0; q < om.Q(); ++q) {
      detail::cell(usage_.data(), q, SM::kM) = lanes4::mul(detail::cell(usage_.data(), q, SM::kM), normv);
      detail::cell(usage_.data(), q, SM::kI) = lanes4::mul(detail::cell(usage_.data(), q, SM::kI), normv);
    }
    const float xN = xN_ * norm, xC = xC_ * norm, xJ = xJ_ * norm;
    const float flanks = xN + xC + xJ;
    null2_from_usage(om, alphabet, usage_.data(), flanks, null2);
    rows_ = 0;
  }

 private:
  std::vector<Lanes4> usage_;
  float xN_ = 0, xC_ = 0, xJ_ = 0;
  int rows_ = 0;
};

// p7_Null2_ByExpectation over a posterior matrix of Ld = pp.L rows.
inline void null2_by_expectation(const StripedOddsProfile& om, const Plan7Alphabet& alphabet, const StripedMatrix& pp,
                                 std::vector<float>& null2) {
  using SM = StripedMatrix;
  ExpectedUsage usage;
  for (int i = 1; i <= pp.L; ++i) usage.add_row(om.Q(), pp.row(i), pp.x(i, SM::kN), pp.x(i, SM::kC), pp.x(i, SM::kJ));
  usage.finish(om, alphabet, null2);
}

}  // namespace cudp::hmmer

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
