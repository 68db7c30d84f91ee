#pragma once
// hmmsearch's domain definition (p7_domaindef_ByPosteriorHeuristics of HMMER 3.3.2) for one target that passed
// the Forward filter, given its Forward and Backward parser matrices.
//
//   1. Regions: from the posterior probabilities that residue i lies in a domain (mocc) and that a domain starts
//      (B at i-1) or ends (E at i), a region opens where mocc rises above rt1 = 0.25 (its start pulled back to the
//      last residue where mocc minus the begin probability was below rt2 = 0.10) and closes where mocc minus the end
//      probability falls below rt2.
//   2. A region where, at some split point, at least rt3 = 0.20 domains are expected to end before it and start
//      after it probably holds several domains: HMMER samples 200 tracebacks from the region's multihit Forward
//      matrix (the random generator reseeded with 42 for every region, so results do not depend on search order),
//      clusters the sampled domains by single linkage (80% overlap in sequence and model, diagonals within 4),
//      keeps clusters present in at least 25% of the samples with endpoints chosen as the widest coordinate that
//      at least 2% of the cluster's samples reach, drops clusters dominated by an overlapping more probable one,
//      and takes the null2 correction from the sampled domains.
//   3. Each envelope is rescored alone, as a unihit Forward with the whole target's length model; its null2
//      correction (unless the sampling set it) comes from the posterior expectation of state usage; an optimal
//      accuracy alignment gives the alignment coordinates.
// Counts reported per target: expected domains (sum of B posteriors), regions, regions clustered, envelopes
// overlapping the previous one in a clustered region, envelopes, and domains actually rescored.
//
// Step 3 is most of the work on long models and needs nothing from the other steps but the envelope's residues and
// the length model, so it can be done elsewhere (the GPU), later and in any order: plan() does steps 1 and 2 and
// lists the envelopes to rescore as EnvelopeRequests; once each is rescored (rescore_envelope or
// adopt_rescored_envelope of plan7_envelope.hpp), complete() finishes the definition exactly as define() does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "easel_random.hpp"
#include "plan7_posterior.hpp"
#include "plan7_envelope.hpp"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

namespace cudp::hmmer {

struct DomainEnvelope {
  int env_from = 0, env_to = 0;  // 1-based, inclusive
  int ali_from = 0, ali_to = 0, hmm_from = 0, hmm_to = 0;
  float env_nats = 0;          // envsc: unihit Forward score of the envelope, whole-target length model
  float domcorrection = 0;     // sum of the envelope residues' null2 scores (nats)
  float expected_correct = 0;  // oasc: expected correctly aligned residues of the optimal-accuracy alignment
  // With DomainDefinitionParameters::alignments: the optimal-accuracy alignment's columns from its first to its last
  // M, residues numbered in the whole target (1..L).
  std::vector<AlignedColumn> alignment;
};

struct DomainDefinition {
  float expected = 0;
  int regions = 0, clustered = 0, overlaps = 0, envelopes = 0;
  std::vector<DomainEnvelope> domains;
  std::vector<float> null2_scores;  // n2sc[0..L]: per residue null2 log odds, 0 outside envelopes
};

// One envelope that domain definition rescores, in the order define() rescores them.
struct PlannedEnvelope {
  int i = 0, j = 0;         // 1-based, inclusive
  int region = 0;           // which region of the target it comes from (0, 1, ...)
  bool null2_done = false;  // it comes from a clustered region, whose sampled tracebacks set its null2 scores
};

// Domain definition up to the envelopes' rescoring (DomainDefiner::plan), to be finished by DomainDefiner::complete
// once every envelope is rescored, wherever and in whatever order that is done.
struct DomainPlan {
  // expected, regions, clustered and the null2 scores the clustered regions' tracebacks set; no envelopes counted
  // and no domains yet.
  DomainDefinition definition;
  std::vector<PlannedEnvelope> envelopes;
  // One per envelope, in the same order: its residues point into the target given to plan().
  std::vector<EnvelopeRequest> requests;
};

// Scratch for one thread: matrices for regions and envelopes, the sampled ensemble.
struct DomainWorkspace {
  // The envelopes this thread rescores; its Forward matrix also takes a clustered region's multihit Forward while
  // the region's tracebacks are sampled (never at the same time), so that a thread keeps one set of these large
  // matrices.
  EnvelopeWorkspace envelope;
  DomainPosteriors posteriors;
  std::vector<TraceDomain> trace;
  std::vector<Lanes4> usage;
  std::vector<float> null2;
  struct Sample {
    int sample = 0, i = 0, j = 0, k = 0, m = 0;
  };
  std::vector<Sample> samples;
  std::vector<int> assignment, available, stack, endpoint_counts;
  EaselFastRandom rng{42};
};

struct DomainDefinitionParameters {
  float rt1 = 0.25f, rt2 = 0.10f, rt3 = 0.20f;
  int samples = 200;
  float min_overlap = 0.8f;
  int max_diagdiff = 4;
  float min_posterior = 0.25f;
  float min_endpointp = 0.02f;
  std::uint32_t seed = 42;
  bool alignments = false;  // keep each envelope's alignment columns (for alignment displays)
};

namespace detail {

struct Cluster {
  int i = 0, j = 0, k = 0, m = 0;
  float prob = 0;
};

// link_spsamples of p7_spensemble.c, its quirks included (the model overlap has no +1).
inline bool linked(const DomainWorkspace::Sample& a, const DomainWorkspace::Sample& b,
                   const DomainDefinitionParameters& p) {
  int nov = std::min(a.j, b.j) - std::max(a.i, b.i) + 1;
  int n = std::min(a.j - a.i + 1, b.j - b.i + 1);
  if (static_cast<float>(nov) / static_cast<float>(n) < p.min_overlap) return false;
  nov = std::min(a.m, b.m) - std::max(a.k, b.k);
  n = std::min(a.m - a.k + 1, b.m - b.k + 1);
  if (static_cast<float>(nov) / static_cast<float>(n) < p.min_overlap) return false;
  if (std::abs((a.i - a.k) - (b.i - b.k)) <= p.max_diagdiff) return true;
  if (std::abs((a.j - a.m) - (b.j - b.m)) <= p.max_diagdiff) return true;
  return false;
}

// esl_cluster_SingleLinkage with its vertex order, so cluster numbers (and ties later) come out as in HMMER.
inline int single_linkage(DomainWorkspace& ws, const DomainDefinitionParameters& p) {
  const int n = static_cast<int>(ws.samples.size());
  ws.available.resize(static_cast<std::size_t>(n));
  ws.stack.assign(static_cast<std::size_t>(n), 0);
  ws.assignment.assign(static_cast<std::size_t>(n), 0);
  for (int v = 0; v < n; ++v) ws.available[static_cast<std::size_t>(v)] = n - v - 1;
  int na = n, nb = 0, nc = 0;
  while (na > 0) {
    int v = ws.available[static_cast<std::size_t>(na - 1)];
    --na;
    ws.stack[static_cast<std::size_t>(nb++)] = v;
    while (nb > 0) {
      v = ws.stack[static_cast<std::size_t>(--nb)];
      ws.assignment[static_cast<std::size_t>(v)] = nc;
      for (int a = na - 1; a >= 0; --a) {
        if (linked(ws.samples[static_cast<std::size_t>(v)],
                   ws.samples[static_cast<std::size_t>(ws.available[static_cast<std::size_t>(a)])], p)) {
          const int w = ws.available[static_cast<std::size_t>(a)];
          ws.available[static_cast<std::size_t>(a)] = ws.available[static_cast<std::size_t>(na - 1)];
          --na;
          ws.stack[static_cast<std::size_t>(nb++)] = w;
        }
      }
    }
    ++nc;
  }
  return nc;
}

// p7_spensemble_Cluster: significant clusters with consensus endpoints, ordered by sequence start.
inline std::vector<Cluster> cluster_samples(DomainWorkspace& ws, int nsamples, const DomainDefinitionParameters& p) {
  std::vector<Cluster> significant;
  const int nc = single_linkage(ws, p);
  const int n = static_cast<int>(ws.samples.size());
  for (int c = 0; c < nc; ++c) {
    int ninc = 0, idx_of_last = -1;
    for (int h = 0; h < n; ++h) {
      if (ws.assignment[static_cast<std::size_t>(h)] != c) continue;
      if (ws.samples[static_cast<std::size_t>(h)].sample != idx_of_last) ++ninc;
      idx_of_last = ws.samples[static_cast<std::size_t>(h)].sample;
    }
    if (static_cast<float>(ninc) / static_cast<float>(nsamples) < p.min_posterior) continue;
    int imin = 0, imax = 0, jmin = 0, jmax = 0, kmin = 0, kmax = 0, mmin = 0, mmax = 0;
    for (int h = 0; h < n; ++h) {
      if (ws.assignment[static_cast<std::size_t>(h)] != c) continue;
      const auto& s = ws.samples[static_cast<std::size_t>(h)];
      if (imin == 0) {
        imin = imax = s.i;
        jmin = jmax = s.j;
        kmin = kmax = s.k;
        mmin = mmax = s.m;
      } else {
        imin = std::min(imin, s.i);
        imax = std::max(imax, s.i);
        jmin = std::min(jmin, s.j);
        jmax = std::max(jmax, s.j);
        kmin = std::min(kmin, s.k);
        kmax = std::max(kmax, s.k);
        mmin = std::min(mmin, s.m);
        mmax = std::max(mmax, s.m);
      }
    }
    const int threshold = static_cast<int>(std::ceil(static_cast<float>(ninc) * p.min_endpointp));
    auto histogram = [&](int lo, int hi, int DomainWorkspace::Sample::*field) {
      ws.endpoint_counts.assign(static_cast<std::size_t>(hi - lo + 1), 0);
      for (int h = 0; h < n; ++h) {
        if (ws.assignment[static_cast<std::size_t>(h)] == c)
          ++ws.endpoint_counts[static_cast<std::size_t>(ws.samples[static_cast<std::size_t>(h)].*field - lo)];
      }
    };
    auto arg_max = [&]() {
      int best = 0;
      for (int z = 1; z < static_cast<int>(ws.endpoint_counts.size()); ++z) {
        if (ws.endpoint_counts[static_cast<std::size_t>(z)] > ws.endpoint_counts[static_cast<std::size_t>(best)])
          best = z;
      }
      return best;
    };
    auto leftmost = [&](int lo, int hi, int DomainWorkspace::Sample::*field) {
      histogram(lo, hi, field);
      int best = lo;
      for (; best <= hi; ++best)
        if (ws.endpoint_counts[static_cast<std::size_t>(best - lo)] >= threshold) break;
      if (best > hi) best = lo + arg_max();
      return best;
    };
    auto rightmost = [&](int lo, int hi, int DomainWorkspace::Sample::*field) {
      histogram(lo, hi, field);
      int best = hi;
      for (; best >= lo; --best)
        if (ws.endpoint_counts[static_cast<std::size_t>(best - lo)] >= threshold) break;
      if (best < lo) best = lo + arg_max();
      return best;
    };
    const int best_i = leftmost(imin, imax, &DomainWorkspace::Sample::i);
    const int best_k = leftmost(kmin, kmax, &DomainWorkspace::Sample::k);
    const int best_j = rightmost(jmin, jmax, &DomainWorkspace::Sample::j);
    const int best_m = rightmost(mmin, mmax, &DomainWorkspace::Sample::m);
    if (best_i > best_j || best_k > best_m) continue;
    significant.push_back(
        Cluster{best_i, best_j, best_k, best_m, static_cast<float>(ninc) / static_cast<float>(nsamples)});
  }
  std::stable_sort(significant.begin(), significant.end(),
                   [](const Cluster& a, const Cluster& b) { return a.i < b.i; });
  return significant;
}

}  // namespace detail

class DomainDefiner {
 public:
  DomainDefiner(const Plan7Alphabet& alphabet, DomainDefinitionParameters parameters = {})
      : alphabet_(&alphabet), p_(parameters) {}

  // om: the target's profile in multihit mode for length L (left so on return); fwd, bck: its Forward and
  // Backward parser matrices over dsq[0..L-1]. plan(), rescore_envelope for each request, complete().
  void define(StripedOddsProfile& om, const std::uint8_t* dsq, int L, const StripedMatrix& fwd,
              const StripedMatrix& bck, DomainWorkspace& ws, DomainDefinition& out) const {
    DomainPlan planned;
    plan(om, dsq, L, fwd, bck, ws, planned);
    std::vector<RescoredEnvelope> rescored(planned.requests.size());
    const std::int64_t saveL = om.length();
    om.set_mode(false, saveL);
    for (std::size_t e = 0; e < rescored.size(); ++e)
      rescore_envelope(om, *alphabet_, planned.requests[e], p_.alignments, ws.envelope, rescored[e]);
    om.set_mode(true, saveL);
    complete(dsq, std::move(planned), std::move(rescored), out);
  }

  // Everything define() does but rescoring the envelopes: the regions, and for those that hold several domains the
  // sampled tracebacks (which set the region's null2 scores) and their clusters. `out` lists the envelopes and a
  // request for each, with om's unihit transitions for length L (as rescore_envelope must see them). om: as for
  // define().
  void plan(StripedOddsProfile& om, const std::uint8_t* dsq, int L, const StripedMatrix& fwd, const StripedMatrix& bck,
            DomainWorkspace& ws, DomainPlan& out) const {
    CUDP_PLAN7_NO_FP_CONTRACT
    out.definition = DomainDefinition{};
    out.envelopes.clear();
    out.requests.clear();
    DomainDefinition& dd = out.definition;
    dd.null2_scores.assign(static_cast<std::size_t>(L) + 1, 0.0f);
    domain_posteriors(om, fwd, bck, ws.posteriors);
    const std::vector<float>& mocc = ws.posteriors.mocc;
    const std::vector<float>& btot = ws.posteriors.btot;
    const std::vector<float>& etot = ws.posteriors.etot;
    dd.expected = btot[static_cast<std::size_t>(L)];
    const std::int64_t saveL = om.length();
    om.set_mode(false, saveL);
    const OddsSpecials unihit = om.xf();
    om.set_mode(true, saveL);
    const auto add = [&](int i, int j, bool null2_done) {
      out.envelopes.push_back(PlannedEnvelope{i, j, dd.regions - 1, null2_done});
      out.requests.push_back(
          EnvelopeRequest{dsq + (i - 1), static_cast<std::uint32_t>(j - i + 1), unihit, !null2_done});
    };
    int i = -1;
    bool triggered = false;
    for (int j = 1; j <= L; ++j) {
      const auto ju = static_cast<std::size_t>(j);
      if (!triggered) {
        if (mocc[ju] - (btot[ju] - btot[ju - 1]) < p_.rt2) {
          i = j;
        } else if (i == -1) {
          i = j;
        }
        if (mocc[ju] >= p_.rt1) triggered = true;
      } else if (mocc[ju] - (etot[ju] - etot[ju - 1]) < p_.rt2) {
        dd.regions += 1;
        if (multidomain_region(ws.posteriors, i, j)) {
          dd.clustered += 1;
          striped_forward(om, dsq + (i - 1), j - i + 1, ws.envelope.fwd, true);
          for (const detail::Cluster& cluster : trace_ensemble(om, dsq, i, j, ws, dd)) add(cluster.i, cluster.j, true);
        } else {
          add(i, j, false);
        }
        i = -1;
        triggered = false;
      }
    }
  }

  // Finishes define() from a plan of `dsq` (the same target) and its envelopes rescored, in the plan's order: counts
  // the envelopes and the overlaps of clustered ones (with the last envelope of the region that was rescored), sets
  // the null2 scores of single-domain regions from their envelopes and keeps the envelopes that decoded as domains.
  // Takes both apart.
  void complete(const std::uint8_t* dsq, DomainPlan&& plan, std::vector<RescoredEnvelope>&& rescored,
                DomainDefinition& out) const {
    CUDP_PLAN7_NO_FP_CONTRACT
    if (rescored.size() != plan.envelopes.size())
      throw std::invalid_argument("DomainDefiner::complete: not one rescored envelope per planned envelope");
    out = std::move(plan.definition);
    std::vector<float>& n2sc = out.null2_scores;
    int region = -1, last_j2 = 0;
    for (std::size_t e = 0; e < plan.envelopes.size(); ++e) {
      const PlannedEnvelope& planned = plan.envelopes[e];
      RescoredEnvelope& r = rescored[e];
      const int i = planned.i, j = planned.j;
      if (planned.region != region) {
        region = planned.region;
        last_j2 = 0;
      }
      if (planned.null2_done && i <= last_j2) out.overlaps += 1;
      out.envelopes += 1;
      // rescore_isolated_domain's tail; HMMER drops an envelope whose decoding overflowed.
      if (!r.decoded) continue;
      if (planned.null2_done) last_j2 = j;
      DomainEnvelope d;
      if (p_.alignments) {
        d.alignment = std::move(r.columns);
        for (AlignedColumn& c : d.alignment)
          if (c.state != TraceState::D) c.i += i - 1;
      }
      if (!planned.null2_done) {
        if (r.null2.size() < static_cast<std::size_t>(alphabet_->Kp))
          throw std::invalid_argument("DomainDefiner::complete: an envelope rescored without its null2");
        for (int pos = i; pos <= j; ++pos) {
          n2sc[static_cast<std::size_t>(pos)] = std::log(r.null2[dsq[pos - 1]]);
        }
      }
      float domcorrection = 0.0f;
      for (int pos = i; pos <= j; ++pos) domcorrection += n2sc[static_cast<std::size_t>(pos)];
      d.env_from = i;
      d.env_to = j;
      d.ali_from = r.oa.sq_from + i - 1;
      d.ali_to = r.oa.sq_to + i - 1;
      d.hmm_from = r.oa.hmm_from;
      d.hmm_to = r.oa.hmm_to;
      d.env_nats = r.env_nats;
      d.domcorrection = domcorrection;
      d.expected_correct = r.oa.expected_correct;
      out.domains.push_back(std::move(d));
    }
  }

 private:
  bool multidomain_region(const DomainPosteriors& d, int i, int j) const {
    CUDP_PLAN7_NO_FP_CONTRACT
    float max = -1.0f;
    for (int z = i; z <= j; ++z) {
      const float ends_before = d.etot[static_cast<std::size_t>(z)] - d.etot[static_cast<std::size_t>(i) - 1];
      const float starts_after = d.btot[static_cast<std::size_t>(j)] - d.btot[static_cast<std::size_t>(z) - 1];
      const float expected_n = std::min(ends_before, starts_after);
      max = std::max(max, expected_n);
    }
    return max >= p_.rt3;
  }

  // region_trace_ensemble: ws.envelope.fwd holds the region's multihit Forward matrix.
  std::vector<detail::Cluster> trace_ensemble(const StripedOddsProfile& om, const std::uint8_t* dsq, int ireg, int jreg,
                                              DomainWorkspace& ws, DomainDefinition& out) const {
    CUDP_PLAN7_NO_FP_CONTRACT
    const int Lr = jreg - ireg + 1;
    std::vector<float>& n2sc = out.null2_scores;
    for (int pos = ireg; pos <= jreg; ++pos) n2sc[static_cast<std::size_t>(pos)] = 0.0f;
    ws.rng.init(p_.seed);
    ws.samples.clear();
    for (int t = 0; t < p_.samples; ++t) {
      if (!stochastic_trace(ws.rng, om, ws.envelope.fwd, Lr, ws.trace)) ws.trace.clear();
      int pos = 1;
      for (const TraceDomain& d : ws.trace) {
        ws.samples.push_back(
            DomainWorkspace::Sample{t, d.sq_from + ireg - 1, d.sq_to + ireg - 1, d.hmm_from, d.hmm_to});
        null2_by_trace(om, *alphabet_, d, ws.usage, ws.null2);
        // As HMMER: the domain's first residue counts as outside (odds 1).
        for (; pos <= d.sq_from; ++pos) n2sc[static_cast<std::size_t>(ireg + pos - 1)] += 1.0f;
        for (; pos <= d.sq_to; ++pos) {
          n2sc[static_cast<std::size_t>(ireg + pos - 1)] += ws.null2[dsq[ireg + pos - 2]];
        }
      }
      for (; pos <= Lr; ++pos) n2sc[static_cast<std::size_t>(ireg + pos - 1)] += 1.0f;
    }
    for (int pos = ireg; pos <= jreg; ++pos) {
      n2sc[static_cast<std::size_t>(pos)] =
          std::log(n2sc[static_cast<std::size_t>(pos)] / static_cast<float>(p_.samples));
    }
    std::vector<detail::Cluster> clusters = detail::cluster_samples(ws, p_.samples, p_);
    // Remove clusters dominated (>= 80% overlap of the shorter) by a more probable one, with HMMER's early exit
    // at an exact zero overlap.
    const int nc = static_cast<int>(clusters.size());
    std::vector<int> dominated(static_cast<std::size_t>(nc), 0);
    for (int d = 0; d < nc; ++d) {
      for (int d2 = d + 1; d2 < nc; ++d2) {
        const auto& a = clusters[static_cast<std::size_t>(d)];
        const auto& b = clusters[static_cast<std::size_t>(d2)];
        const int nov = std::min(a.j, b.j) - std::max(a.i, b.i) + 1;
        if (nov == 0) break;
        const int n = std::min(a.j - a.i + 1, b.j - b.i + 1);
        if (static_cast<double>(static_cast<float>(nov) / static_cast<float>(n)) >= 0.8) {
          if (a.prob > b.prob) {
            dominated[static_cast<std::size_t>(d2)] = 1;
          } else {
            dominated[static_cast<std::size_t>(d)] = 1;
          }
        }
      }
    }
    std::vector<detail::Cluster> kept;
    for (int d = 0; d < nc; ++d) {
      if (!dominated[static_cast<std::size_t>(d)]) kept.push_back(clusters[static_cast<std::size_t>(d)]);
    }
    return kept;
  }

  const Plan7Alphabet* alphabet_;
  DomainDefinitionParameters p_;
};

}  // namespace cudp::hmmer

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
