#pragma once
// Tracebacks through HMMER 3.3.2's striped matrices, bit for bit: the stochastic traceback of a Forward matrix
// (stotrace.c) that domain definition samples 200 times per multi-domain region, null2 from a sampled domain
// (null2.c, p7_Null2_ByTrace), and the optimal-accuracy alignment of a posterior matrix (optacc.c), which gives a
// domain's alignment coordinates. Every choice compares a deviate of Easel's generator with sums of floats in
// HMMER's order, so that the same paths are sampled.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "easel_random.hpp"
#include "plan7_posterior.hpp"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

namespace cudp::hmmer {

// A domain of a sampled or optimal-accuracy trace: first and last match state (sequence and model coordinates)
// and, for null2 by trace, how often each node emitted (HMMER's p7_Null2_ByTrace counts insert emissions in the
// match cell of their node, and so does this).
struct TraceDomain {
  int sq_from = 0, sq_to = 0, hmm_from = 0, hmm_to = 0;
  int emitted = 0;               // residues emitted by M and I states between B and E
  std::vector<int> node_counts;  // per node 1..M (index k)
};

// esl_vec_FNorm, then esl_rnd_FChoose: how the stochastic traceback picks a predecessor among path weights p[0..n-1].
// Returns -1 where FChoose would fail.
inline int choose_normalized(EaselFastRandom& rng, float* p, int n) {
  CUDP_PLAN7_NO_FP_CONTRACT
  const float total = detail::easel_sum(p, static_cast<std::size_t>(n));
  if (total != 0.0f) {
    for (int i = 0; i < n; ++i) p[i] /= total;
  } else {
    for (int i = 0; i < n; ++i) p[i] = static_cast<float>(1.0 / static_cast<double>(n));
  }
  double norm = 0.0, sum = 0.0;
  const double roll = rng.next();
  for (int i = 0; i < n; ++i) norm += p[i];
  for (int i = 0; i < n; ++i) {
    sum += static_cast<double>(p[i]);
    if (roll < sum / norm) return i;
  }
  return -1;
}

enum class TraceState { S, N, B, M, D, I, E, C, J, T };

// One column of an optimal-accuracy alignment as p7_OATrace records it: the state (M, D or I), its node, the
// residue it emits (1-based in the aligned sequence; 0 for D) and the posterior probability of that cell (0 for D),
// which the alignment's PP line encodes.
struct AlignedColumn {
  TraceState state = TraceState::M;
  int k = 0, i = 0;
  float pp = 0;
};

// One traceback step: the predecessor among `states` picked by their path weights (choose_normalized). False where
// HMMER's choice would fail.
template <int N>
inline bool choose_state(EaselFastRandom& rng, float (&path)[N], const TraceState (&states)[N], TraceState& chosen) {
  const int c = choose_normalized(rng, path, N);
  if (c < 0) return false;
  chosen = states[c];
  return true;
}

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
                         value(i - 1, k - 1, SM::kI) * t_into(k, kOddsIM),
                         value(i - 1, k - 1, SM::kD) * t_into(k, kOddsDM)};
        if (!choose_state(rng, path, {TS::B, TS::M, TS::I, TS::D}, s1)) return false;
        --k;
        --i;
        break;
      }
      case TS::D: {
        float path[2] = {k > 1 ? value(i, k - 1, SM::kM) * t_into(k - 1, kOddsMD) : 0.0f,
                         k > 1 ? value(i, k - 1, SM::kD) * t_dd(k - 1) : 0.0f};
        if (!choose_state(rng, path, {TS::M, TS::D}, s1)) return false;
        --k;
        break;
      }
      case TS::I: {
        float path[2] = {value(i - 1, k, SM::kM) * t_into(k, kOddsMI), value(i - 1, k, SM::kI) * t_into(k, kOddsII)};
        if (!choose_state(rng, path, {TS::M, TS::I}, s1)) return false;
        --i;
        break;
      }
      case TS::N:
        s1 = i == 0 ? TS::S : TS::N;
        break;
      case TS::C: {
        float path[2] = {ox.x(i - 1, SM::kC) * xf.c_loop, ox.x(i, SM::kE) * xf.e_move * ox.x(i, SM::kScale)};
        if (!choose_state(rng, path, {TS::C, TS::E}, s1)) return false;
        break;
      }
      case TS::J: {
        float path[2] = {ox.x(i - 1, SM::kJ) * xf.j_loop, ox.x(i, SM::kE) * xf.e_loop * ox.x(i, SM::kScale)};
        if (!choose_state(rng, path, {TS::J, TS::E}, s1)) return false;
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
        if (!choose_state(rng, path, {TS::N, TS::J}, s1)) return false;
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
// what p7_alidisplay_Create shows; envelopes are aligned in unihit mode, so the trace holds one domain. With
// `columns`, also that domain's columns from its first to its last match state (what the alignment display shows;
// delete states before the first or after the last M are left out, as p7_alidisplay_Create leaves them).
struct OptimalAccuracyResult {
  float expected_correct = 0;
  int sq_from = 0, sq_to = 0, hmm_from = 0, hmm_to = 0;
  bool ok = false;
};

// Where the optimal-accuracy traceback reads posterior probabilities: a decoded matrix here, or the products of a
// Forward and a Backward matrix (plan7_envelope.hpp), which are the same floats.
struct PosteriorMatrix {
  const StripedMatrix& pp;
  float special(int i, StripedMatrix::Special s) const { return pp.x(i, s); }
  float node(int i, int k, StripedMatrix::Cell c) const { return pp.node(i, k, c); }
};

// p7_OptimalAccuracy's row 0 of `ox`, sized for L rows.
inline void optimal_accuracy_start(const StripedOddsProfile& om, int L, StripedMatrix& ox) {
  using SM = StripedMatrix;
  const Lanes4 infv = lanes4::splat(-std::numeric_limits<float>::infinity());
  ox.resize(om.M(), om.Q(), L, true);
  Lanes4* dpc = ox.row(0);
  for (int q = 0; q < om.Q(); ++q)
    detail::cell(dpc, q, SM::kM) = detail::cell(dpc, q, SM::kI) = detail::cell(dpc, q, SM::kD) = infv;
  ox.x(0, SM::kE) = -std::numeric_limits<float>::infinity();
  ox.x(0, SM::kN) = 0.0f;
  ox.x(0, SM::kJ) = -std::numeric_limits<float>::infinity();
  ox.x(0, SM::kB) = 0.0f;
  ox.x(0, SM::kC) = -std::numeric_limits<float>::infinity();
}

// p7_OptimalAccuracy's row i of `ox` (row i-1 done), from row i of the posterior cells (`ppr`) and of the posterior
// N, J and C.
inline void optimal_accuracy_row(const StripedOddsProfile& om, const Lanes4* ppr, float pp_n, float pp_j, float pp_c,
                                 int i, StripedMatrix& ox) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using SM = StripedMatrix;
  const int Q = om.Q();
  const OddsSpecials& xf = om.xf();
  const float ninf = -std::numeric_limits<float>::infinity();
  const Lanes4 infv = lanes4::splat(ninf);
  const auto allowed = lanes4::where_possible;
  const auto vmax = lanes4::max;
  auto shift_up_inf = [&](const Lanes4& a) { return lanes4::shift_up(a, ninf); };
  const Lanes4* dpp = ox.row(i - 1);
  Lanes4* dpc = ox.row(i);
  Lanes4 dcv = infv, xEv = infv;
  const Lanes4 xBv = lanes4::splat(ox.x(i - 1, SM::kB));
  Lanes4 mpv = shift_up_inf(detail::cell(dpp, Q - 1, SM::kM));
  Lanes4 dpv = shift_up_inf(detail::cell(dpp, Q - 1, SM::kD));
  Lanes4 ipv = shift_up_inf(detail::cell(dpp, Q - 1, SM::kI));
  for (int q = 0; q < Q; ++q) {
    Lanes4 sv = allowed(om.transition(q, kOddsBM), xBv);
    sv = vmax(sv, allowed(om.transition(q, kOddsMM), mpv));
    // I->M gates the I path and D->M the D path. HMMER 3.0 crossed the two here (fixed in 2012); 3.3.2 does
    // not, and the crossing shows where a model has t(D->M) = 0 (hmmbuild --pnone).
    sv = vmax(sv, allowed(om.transition(q, kOddsIM), ipv));
    sv = vmax(sv, allowed(om.transition(q, kOddsDM), dpv));
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
  float t1 = xf.j_loop == 0.0f ? 0.0f : ox.x(i - 1, SM::kJ) + pp_j;
  float t2 = xf.e_loop == 0.0f ? 0.0f : ox.x(i, SM::kE);
  ox.x(i, SM::kJ) = t1 > t2 ? t1 : t2;
  t1 = xf.c_loop == 0.0f ? 0.0f : ox.x(i - 1, SM::kC) + pp_c;
  t2 = xf.e_move == 0.0f ? 0.0f : ox.x(i, SM::kE);
  ox.x(i, SM::kC) = t1 > t2 ? t1 : t2;
  ox.x(i, SM::kN) = xf.n_loop == 0.0f ? 0.0f : ox.x(i - 1, SM::kN) + pp_n;
  t1 = xf.n_move == 0.0f ? 0.0f : ox.x(i, SM::kN);
  t2 = xf.j_move == 0.0f ? 0.0f : ox.x(i, SM::kJ);
  ox.x(i, SM::kB) = t1 > t2 ? t1 : t2;
}

// p7_OATrace through a finished `ox` of L = ox.L rows: the first and last M for the coordinates, every M, D and I
// state for `columns`.
template <class Posteriors>
inline OptimalAccuracyResult optimal_accuracy_trace(const StripedOddsProfile& om, const StripedMatrix& ox,
                                                    const Posteriors& pp,
                                                    std::vector<AlignedColumn>* columns = nullptr) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using SM = StripedMatrix;
  const int Q = om.Q();
  const int L = ox.L;
  const OddsSpecials& xf = om.xf();
  const float ninf = -std::numeric_limits<float>::infinity();
  OptimalAccuracyResult result;
  result.expected_correct = ox.x(L, SM::kC);

  using TS = TraceState;
  auto value = [&](int row, int node, SM::Cell c) { return node >= 1 ? ox.node(row, node, c) : 0.0f; };
  auto t_into = [&](int node, OddsTransition t) { return om.transition(om.segment_of(node), t).v[om.lane_of(node)]; };
  int i = L, k = 0;
  TS s0 = TS::C;
  bool seen_m = false;
  if (columns != nullptr) columns->clear();
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
        for (int c = 1; c < 4; ++c)
          if (path[c] > path[best]) best = c;
        s1 = states[best];
        --k;
        --i;
        break;
      }
      case TS::D: {
        const float p0 = k > 1 && t_into(k - 1, kOddsMD) != 0.0f ? value(i, k - 1, SM::kM) : ninf;
        const float p1 =
            k > 1 && om.dd(om.segment_of(k - 1)).v[om.lane_of(k - 1)] != 0.0f ? value(i, k - 1, SM::kD) : ninf;
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
        const float p0 = xf.c_loop == 0.0f ? ninf : ox.x(i - 1, SM::kC) + pp.special(i, SM::kC);
        const float p1 = xf.e_move == 0.0f ? ninf : ox.x(i, SM::kE);
        s1 = p0 > p1 ? TS::C : TS::E;
        break;
      }
      case TS::J: {
        const float p0 = xf.j_loop == 0.0f ? ninf : ox.x(i - 1, SM::kJ) + pp.special(i, SM::kJ);
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
            if (detail::cell(row, q, SM::kM).v[r] >= max) {
              max = detail::cell(row, q, SM::kM).v[r];
              smax = TS::M;
              kmax = r * Q + q + 1;
            }
          }
          for (int r = 0; r < 4; ++r) {
            if (detail::cell(row, q, SM::kD).v[r] > max) {
              max = detail::cell(row, q, SM::kD).v[r];
              smax = TS::D;
              kmax = r * Q + q + 1;
            }
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
    if (columns != nullptr && (s1 == TS::M || s1 == TS::I || (s1 == TS::D && seen_m))) {
      const float p = s1 == TS::M ? pp.node(i, k, SM::kM) : s1 == TS::I ? pp.node(i, k, SM::kI) : 0.0f;
      columns->push_back(AlignedColumn{s1, k, s1 == TS::D ? 0 : i, p});
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
  if (columns != nullptr) {
    // Collected backwards; deletes before the alignment's first M were collected too.
    while (!columns->empty() && columns->back().state != TS::M) columns->pop_back();
    std::reverse(columns->begin(), columns->end());
  }
  return result;
}

// p7_OptimalAccuracy and p7_OATrace on a decoded matrix.
inline OptimalAccuracyResult optimal_accuracy(const StripedOddsProfile& om, const StripedMatrix& pp, StripedMatrix& ox,
                                              std::vector<AlignedColumn>* columns = nullptr) {
  optimal_accuracy_start(om, pp.L, ox);
  for (int i = 1; i <= pp.L; ++i) {
    optimal_accuracy_row(om, pp.row(i), pp.x(i, StripedMatrix::kN), pp.x(i, StripedMatrix::kJ),
                         pp.x(i, StripedMatrix::kC), i, ox);
  }
  return optimal_accuracy_trace(om, ox, PosteriorMatrix{pp}, columns);
}

}  // namespace cudp::hmmer

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
