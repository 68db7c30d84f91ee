// The host's striped Forward and Backward (hmmer/plan7_posterior.hpp) against a literal transcription of HMMER
// 3.3.2's loops (p7_Forward, p7_Backward and their parsers, below), bit for bit: every cell and special state of
// every row, full matrices and parsers. The library's passes take two exact shortcuts that HMMER's do not (E's
// D terms summed inside the last D->D pass, and D->D passes that stop once the carried value is 0 in every lane);
// this is where they are checked. Random models of 5-1100 nodes (both sides of the 100-node rule, sticky delete
// chains that keep carries alive), targets with consensus runs (rescaled rows), degenerate codes, length 1.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "cudp/hmmer/null_model.hpp"
#include "cudp/hmmer/plan7_posterior.hpp"
#include "cudp/hmmer/plan7_profile.hpp"
#include "random_plan7.hpp"
#include "striped_matrix_check.hpp"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace {

using namespace cudp;
using hmmer::kOddsBM;
using hmmer::kOddsDM;
using hmmer::kOddsIM;
using hmmer::kOddsMD;
using hmmer::kOddsMI;
using hmmer::kOddsMM;
using hmmer::kOddsII;
using hmmer::Lanes4;
using hmmer::OddsSpecials;
using hmmer::StripedMatrix;
using hmmer::StripedOddsProfile;
namespace lanes4 = hmmer::lanes4;

inline void literal_finish_backward_deletes(const StripedOddsProfile& om, Lanes4* dpc, Lanes4 dcv) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using lanes4::add;
  using lanes4::mul;
  using lanes4::shift_down;
  using SM = StripedMatrix;
  const int Q = om.Q();
  for (int j = 1; j < 4; ++j) {
    dcv = shift_down(dcv);
    for (int q = Q - 1; q >= 0; --q) {
      dcv = mul(dcv, om.dd(q));
      hmmer::detail::cell(dpc, q, SM::kD) = add(hmmer::detail::cell(dpc, q, SM::kD), dcv);
    }
  }
  dcv = shift_down(hmmer::detail::cell(dpc, 0, SM::kD));
  for (int q = Q - 1; q >= 0; --q) {
    hmmer::detail::cell(dpc, q, SM::kM) = add(hmmer::detail::cell(dpc, q, SM::kM), mul(dcv, om.transition(q, kOddsMD)));
    dcv = hmmer::detail::cell(dpc, q, SM::kD);
  }
}

inline float literal_forward(const StripedOddsProfile& om, const std::uint8_t* dsq, int L, StripedMatrix& ox,
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
    hmmer::detail::cell(dpc, q, SM::kM) = hmmer::detail::cell(dpc, q, SM::kI) =
        hmmer::detail::cell(dpc, q, SM::kD) = Lanes4{};
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
    Lanes4 mpv = shift_up(hmmer::detail::cell(dpp, Q - 1, SM::kM));
    Lanes4 dpv = shift_up(hmmer::detail::cell(dpp, Q - 1, SM::kD));
    Lanes4 ipv = shift_up(hmmer::detail::cell(dpp, Q - 1, SM::kI));
    for (int q = 0; q < Q; ++q) {
      Lanes4 sv = mul(xBv, om.transition(q, kOddsBM));
      sv = add(sv, mul(mpv, om.transition(q, kOddsMM)));
      sv = add(sv, mul(ipv, om.transition(q, kOddsIM)));
      sv = add(sv, mul(dpv, om.transition(q, kOddsDM)));
      sv = mul(sv, rp[q]);
      xEv = add(xEv, sv);
      mpv = hmmer::detail::cell(dpp, q, SM::kM);
      dpv = hmmer::detail::cell(dpp, q, SM::kD);
      ipv = hmmer::detail::cell(dpp, q, SM::kI);
      hmmer::detail::cell(dpc, q, SM::kM) = sv;
      hmmer::detail::cell(dpc, q, SM::kD) = dcv;
      dcv = mul(sv, om.transition(q, kOddsMD));
      sv = mul(mpv, om.transition(q, kOddsMI));
      hmmer::detail::cell(dpc, q, SM::kI) = add(sv, mul(ipv, om.transition(q, kOddsII)));
    }
    // D->D paths: one pass along each lane's segment, then up to three more passes carrying across lanes.
    dcv = shift_up(dcv);
    hmmer::detail::cell(dpc, 0, SM::kD) = Lanes4{};
    for (int q = 0; q < Q; ++q) {
      hmmer::detail::cell(dpc, q, SM::kD) = add(dcv, hmmer::detail::cell(dpc, q, SM::kD));
      dcv = mul(hmmer::detail::cell(dpc, q, SM::kD), om.dd(q));
    }
    if (om.M() < 100) {
      for (int j = 1; j < 4; ++j) {
        dcv = shift_up(dcv);
        for (int q = 0; q < Q; ++q) {
          hmmer::detail::cell(dpc, q, SM::kD) = add(dcv, hmmer::detail::cell(dpc, q, SM::kD));
          dcv = mul(dcv, om.dd(q));
        }
      }
    } else {
      for (int j = 1; j < 4; ++j) {
        dcv = shift_up(dcv);
        bool changed = false;
        for (int q = 0; q < Q; ++q) {
          const Lanes4 sv = add(dcv, hmmer::detail::cell(dpc, q, SM::kD));
          changed = changed || lanes4::any_greater(sv, hmmer::detail::cell(dpc, q, SM::kD));
          hmmer::detail::cell(dpc, q, SM::kD) = sv;
          dcv = mul(dcv, om.dd(q));
        }
        if (!changed) break;
      }
    }
    for (int q = 0; q < Q; ++q) xEv = add(hmmer::detail::cell(dpc, q, SM::kD), xEv);
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
        hmmer::detail::cell(dpc, q, SM::kM) = mul(hmmer::detail::cell(dpc, q, SM::kM), scale);
        hmmer::detail::cell(dpc, q, SM::kD) = mul(hmmer::detail::cell(dpc, q, SM::kD), scale);
        hmmer::detail::cell(dpc, q, SM::kI) = mul(hmmer::detail::cell(dpc, q, SM::kI), scale);
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
  return hmmer::forward_parser_score(om, ox);
}

inline void literal_backward(const StripedOddsProfile& om, const std::uint8_t* dsq, int L, const StripedMatrix& fwd,
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
  for (int q = 0; q < Q; ++q) hmmer::detail::cell(dpc, q, SM::kM) = hmmer::detail::cell(dpc, q, SM::kD) = xEv;
  for (int q = 0; q < Q; ++q) hmmer::detail::cell(dpc, q, SM::kI) = Lanes4{};
  // Row L's D->D paths: the first pass includes E from D itself, three more extend only the chain.
  Lanes4 dpv = shift_down(hmmer::detail::cell(dpc, Q - 1, SM::kD));
  for (int q = Q - 1; q >= 0; --q) {
    dcv = mul(dpv, om.dd(q));
    hmmer::detail::cell(dpc, q, SM::kD) = add(hmmer::detail::cell(dpc, q, SM::kD), dcv);
    dpv = hmmer::detail::cell(dpc, q, SM::kD);
  }
  literal_finish_backward_deletes(om, dpc, dcv);
  const float scale_L = fwd.x(L, SM::kScale);
  if (scale_L > 1.0f) {
    xE = xE / scale_L;
    xN = xN / scale_L;
    xC = xC / scale_L;
    xJ = xJ / scale_L;
    xB = xB / scale_L;
    xEv = lanes4::splat(static_cast<float>(1.0 / static_cast<double>(scale_L)));
    for (int q = 0; q < Q; ++q) {
      hmmer::detail::cell(dpc, q, SM::kM) = mul(hmmer::detail::cell(dpc, q, SM::kM), xEv);
      hmmer::detail::cell(dpc, q, SM::kD) = mul(hmmer::detail::cell(dpc, q, SM::kD), xEv);
      hmmer::detail::cell(dpc, q, SM::kI) = mul(hmmer::detail::cell(dpc, q, SM::kI), xEv);
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
    Lanes4 mpv = shift_down(mul(hmmer::detail::cell(dpp, 0, SM::kM), rp[0]));
    Lanes4 xBv{};
    for (int q = Q - 1; q >= 0; --q) {
      const Lanes4 ipv = hmmer::detail::cell(dpp, q, SM::kI);
      hmmer::detail::cell(dpc, q, SM::kI) = add(mul(ipv, om.transition(q, kOddsII)), mul(mpv, timv));
      hmmer::detail::cell(dpc, q, SM::kD) = mul(mpv, tdmv);
      const Lanes4 mcv = add(mul(ipv, om.transition(q, kOddsMI)), mul(mpv, tmmv));
      mpv = mul(hmmer::detail::cell(dpp, q, SM::kM), rp[q]);
      hmmer::detail::cell(dpc, q, SM::kM) = mcv;
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
    dpv = shift_down(add(hmmer::detail::cell(dpc, 0, SM::kD), xEv));
    for (int q = Q - 1; q >= 0; --q) {
      dcv = mul(dpv, om.dd(q));
      hmmer::detail::cell(dpc, q, SM::kD) = add(hmmer::detail::cell(dpc, q, SM::kD), add(dcv, xEv));
      dpv = hmmer::detail::cell(dpc, q, SM::kD);
      hmmer::detail::cell(dpc, q, SM::kM) = add(hmmer::detail::cell(dpc, q, SM::kM), xEv);
    }
    literal_finish_backward_deletes(om, dpc, dcv);
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
        hmmer::detail::cell(dpc, q, SM::kM) = mul(hmmer::detail::cell(dpc, q, SM::kM), inverse);
        hmmer::detail::cell(dpc, q, SM::kD) = mul(hmmer::detail::cell(dpc, q, SM::kD), inverse);
        hmmer::detail::cell(dpc, q, SM::kI) = mul(hmmer::detail::cell(dpc, q, SM::kI), inverse);
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
    Lanes4 mpv = mul(hmmer::detail::cell(dpp, q, SM::kM), rp[q]);
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

using test::same_bits;

// Rows 0..L (full) or the last two rows (parsers) of cells, and every row's specials.
void require_same(const StripedMatrix& got, const StripedMatrix& want, const char* pass) {
  INFO(pass);
  REQUIRE(got.has_own_scales == want.has_own_scales);
  REQUIRE(same_bits(got.totscale, want.totscale));
  REQUIRE(test::first_difference(got, want, got.full ? 0 : std::max(0, got.L - 1)) == "");
}

long check_model(const test::RandomModelOptions& options, int count, int max_length) {
  hmmer::use_hmmer_float_mode();
  const hmmer::HmmModel hmm = test::random_hmm(options);
  const hmmer::Plan7Profile profile =
      hmmer::configure_profile(hmm, hmmer::default_null_model(hmmer::plan7_alphabet_of(hmm.alphabet)));
  StripedOddsProfile om(profile);
  const auto targets = test::random_targets(profile, count, max_length, options.seed * 3 + 11);
  StripedMatrix fwd, bck, want_fwd, want_bck;
  long rows = 0;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const int L = static_cast<int>(targets[t].size());
    om.set_mode(t % 3 != 2, L);
    INFO("model " << hmm.name << ", target " << t << " of length " << L);
    for (const bool full : {true, false}) {
      const float score = hmmer::striped_forward(om, targets[t].data(), L, fwd, full);
      const float want_score = literal_forward(om, targets[t].data(), L, want_fwd, full);
      REQUIRE(same_bits(score, want_score));
      require_same(fwd, want_fwd, "forward");
      hmmer::striped_backward(om, targets[t].data(), L, fwd, bck, full);
      literal_backward(om, targets[t].data(), L, want_fwd, want_bck, full);
      require_same(bck, want_bck, "backward");
    }
    rows += L;
  }
  return rows;
}

}  // namespace

TEST_CASE("Striped Forward and Backward equal HMMER's loops transcribed literally, bit for bit",
          "[plan7][posterior]") {
  long rows = 0;
  for (const int M : {5, 60, 99, 100, 300, 1100}) {
    for (const bool sticky : {false, true}) {
      test::RandomModelOptions options;
      options.M = M;
      options.sticky_deletes = sticky;
      options.seed = static_cast<std::uint32_t>(M * 4 + (sticky ? 3 : 1));
      rows += check_model(options, M >= 300 ? 6 : 12, M >= 300 ? 900 : 400);
    }
  }
  REQUIRE(rows > 20000);
}
