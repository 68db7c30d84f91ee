#pragma once
// hmmsearch's per-target pipeline (p7_Pipeline of HMMER 3.3.2) on the host, from the filter decisions to the
// reported numbers: the stages, in the order and with the thresholds hmmsearch applies them,
//   1. MSV filter against F1 (P-value from null1);
//   2. biased-composition filter: the MSV score's P-value recomputed against the bias filter's null model, again
//      against F1 (plan7_bias_filter.hpp); its score ("filtersc") replaces null1 in the next two P-values;
//   3. Viterbi filter against F2, run only when the P-value so far is above F2;
//   4. Forward against F3;
// then, for the survivors, Backward, posterior decoding and domain definition, the null2 correction and the final
// scores and P-values (see after_filters).
//
// Options mirror hmmsearch's: --max passes everything (F1 = F2 = F3 = 1, no bias filter; the Viterbi filter is
// then never run, since no P-value exceeds 1), --nobias turns stage 2 off, --nonull2 leaves scores uncorrected.
//
// The stage decisions are separate calls so that the filters can run elsewhere (the GPU) and only their results
// come back: after_msv, after_viterbi, after_filters. run() does all of it on the host. after_filters is in turn
// two halves, before_envelopes and after_envelopes, with the rescoring of the domain envelopes between them, so
// that envelopes can be rescored elsewhere, later and in batches across targets (rescore_envelope on the host,
// adopt_envelope for a device's results).
//
// Everything after the filters reproduces HMMER's single-precision SSE arithmetic operation for operation
// (plan7_odds_profile.hpp, plan7_posterior.hpp, plan7_domains.hpp), so scores, envelopes, alignment coordinates and
// the sampled-traceback null2 corrections are HMMER's own floats, not approximations of them. With
// Plan7PipelineOptions::alignments each domain also carries its alignment display (plan7_alignment.hpp).
//
// Zero-length targets: hmmsearch counts them as targets and skips them; every call here does the same (counts
// targets, never passes a stage, returns no hit).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "filter_survivors.hpp"
#include "hmm_file.hpp"
#include "null_model.hpp"
#include "plan7_alignment.hpp"
#include "plan7_bias_filter.hpp"
#include "plan7_domains.hpp"
#include "plan7_filter_reference.hpp"
#include "plan7_filters.hpp"
#include "plan7_hits.hpp"
#include "plan7_odds_profile.hpp"
#include "plan7_posterior.hpp"
#include "plan7_profile.hpp"
#include "plan7_reference.hpp"
#include "plan7_traces.hpp"

namespace cudp::hmmer {

struct Plan7PipelineOptions {
  double F1 = 0.02, F2 = 1e-3, F3 = 1e-5;
  bool bias_filter = true;
  bool null2 = true;
  bool max = false;  // --max: every filter passes, as hmmsearch --max
  // --seed: the random generator of domain definition is reseeded with this before every multi-domain region,
  // as hmmsearch does (its default 42). hmmsearch's --seed 0 (one arbitrary seed, no reseeding) is not supported:
  // 0 is taken as 42.
  std::uint32_t seed = 42;
  // Build each domain's alignment display (Plan7DomainHit::alignment), for output that shows alignments.
  bool alignments = false;
};

// What hmmsearch's "Internal pipeline statistics summary" counts. A target that skips the Viterbi filter because
// its P-value is already below F2 counts as having passed it, as in HMMER.
struct Plan7PipelineCounts {
  std::uint64_t targets = 0, residues = 0;
  std::uint64_t passed_msv = 0, passed_bias = 0, passed_viterbi = 0, passed_forward = 0;
  std::uint64_t residues_passed_msv = 0, residues_passed_bias = 0, residues_passed_viterbi = 0,
                residues_passed_forward = 0;
  void merge(const Plan7PipelineCounts& other) {
    targets += other.targets;
    residues += other.residues;
    passed_msv += other.passed_msv;
    passed_bias += other.passed_bias;
    passed_viterbi += other.passed_viterbi;
    passed_forward += other.passed_forward;
    residues_passed_msv += other.residues_passed_msv;
    residues_passed_bias += other.residues_passed_bias;
    residues_passed_viterbi += other.residues_passed_viterbi;
    residues_passed_forward += other.residues_passed_forward;
  }
};

class Plan7Pipeline {
 public:
  Plan7Pipeline(const HmmModel& model, const NullModel& null_model, Plan7PipelineOptions options = {})
      : options_(options),
        name_(model.name),
        M_(model.length),
        alphabet_(&plan7_alphabet_of(model.alphabet)),
        definer_(*alphabet_, domain_parameters(options)) {
    if (!model.stats) throw std::invalid_argument("Plan7Pipeline: model '" + model.name + "' has no STATS lines");
    stats_ = *model.stats;
    if (options_.max) {
      options_.F1 = options_.F2 = options_.F3 = 1.0;
      options_.bias_filter = false;
    }
    options_.F1 = std::min(options_.F1, 1.0);
    options_.F2 = std::min(options_.F2, 1.0);
    options_.F3 = std::min(options_.F3, 1.0);
    msv_fails_below_bits_ = fails_below_bits(stats_.msv_mu, stats_.msv_lambda, options_.F1);
    profile_ = configure_profile(model, null_model, Plan7Mode::MultihitLocal, 400);
    msv_ = make_msv_filter_profile(profile_, 400);
    viterbi_ = make_viterbi_filter_profile(profile_, 400);
    odds_ = StripedOddsProfile(profile_);
    bias_ = BiasFilter(null_model, model.composition.empty() ? model_composition(model) : model.composition, M_);
    if (options_.alignments) consensus_ = model_consensus(model, *alphabet_);
  }

  // Per-thread scratch: profiles configured for the current target's length, DP matrices.
  struct Workspace {
    Plan7Profile profile;
    MsvFilterProfile msv;
    ViterbiFilterProfile viterbi;
    StripedOddsProfile odds;
    StripedMatrix forward, backward;  // parser matrices of the whole target
    DomainWorkspace domains;
    const Plan7Pipeline* owner = nullptr;  // the pipeline whose profiles these are copies of
  };

  // A target between the two halves of after_filters: it passed F3 and its domain definition waits for its
  // envelopes. Owns all it holds but the residues, which its requests point into (the caller's target).
  struct PendingTarget {
    std::size_t L = 0;
    float fwdsc = 0;   // Forward score (nats)
    float nullsc = 0;  // null1 score (nats)
    DomainPlan plan;   // plan.requests: the envelopes to rescore, each for rescore_envelope or adopt_envelope
  };

  struct AfterMsv {
    bool passed = false;       // passed the MSV and bias filters
    bool run_viterbi = false;  // the Viterbi filter must run (else the target has already passed it)
    float filter_nats = 0;     // the null score for the next stages: the bias filter's, or null1 without it
  };

  // Stage 1 and 2 from an MSV filter result. When the target passes and run_viterbi is false, it has passed the
  // Viterbi stage too (and is counted so): go on to after_filters.
  // `bias`: the bias filter's Forward sum of this target computed elsewhere (a GPU: BiasSum), taken when certain.
  AfterMsv after_msv(const std::uint8_t* codes, std::size_t L, const FilterResult& msv, Plan7PipelineCounts& counts,
                     Workspace& ws, const BiasSum* bias = nullptr) const {
    (void)ws;
    AfterMsv r;
    counts.targets += 1;
    counts.residues += L;
    if (L == 0) return r;
    if (!msv_may_pass(L, msv.nats)) return r;  // most targets
    const float nullsc = null1_score_by_table(static_cast<std::int64_t>(L));
    double P = filter_gumbel_survival(filter_bits(msv.nats, nullsc), stats_.msv_mu, stats_.msv_lambda);
    if (P > options_.F1) return r;
    counts.passed_msv += 1;
    counts.residues_passed_msv += L;
    float filtersc = nullsc;
    if (options_.bias_filter) {
      filtersc = bias != nullptr && bias->certain ? bias_.finish(bias->nats, L) : bias_.score(codes, L);
      P = filter_gumbel_survival(filter_bits(msv.nats, filtersc), stats_.msv_mu, stats_.msv_lambda);
      if (P > options_.F1) return r;
    }
    counts.passed_bias += 1;
    counts.residues_passed_bias += L;
    r.passed = true;
    r.filter_nats = filtersc;
    r.run_viterbi = P > options_.F2;
    if (!r.run_viterbi) {
      counts.passed_viterbi += 1;
      counts.residues_passed_viterbi += L;
    }
    return r;
  }

  // False when a target of length L whose MSV filter score is `nats` certainly fails the MSV stage: its score is a
  // hundredth of a bit or more below the F1 threshold, so P > F1 whatever the rounding of the P-value's exponentials
  // (after_msv then rejects it without them). Non-decreasing in nats; a filter that computes every target's score
  // can set these targets aside where it runs (hmmer/filter_survivors.hpp).
  bool msv_may_pass(std::size_t L, float nats) const {
    return L > 0 && !(filter_bits(nats, null1_score_by_table(static_cast<std::int64_t>(L))) < msv_fails_below_bits_);
  }
  MsvMayPass msv_test() const {
    return [this](std::uint32_t L, float nats) { return msv_may_pass(L, nats); };
  }

  // Stage 3, for targets whose after_msv said run_viterbi.
  bool after_viterbi(std::size_t L, const FilterResult& viterbi, float filter_nats, Plan7PipelineCounts& counts) const {
    if (L == 0) return false;
    const double P =
        filter_gumbel_survival(filter_bits(viterbi.nats, filter_nats), stats_.viterbi_mu, stats_.viterbi_lambda);
    if (P > options_.F2) return false;
    counts.passed_viterbi += 1;
    counts.residues_passed_viterbi += L;
    return true;
  }

  // Stage 4 and everything after it, for a target that passed the filters: Forward against F3, then Backward,
  // domain definition (plan7_domains.hpp), null2 and the reported scores, as p7_Pipeline computes them. No hit
  // when Forward's P-value is above F3, or (as in HMMER) when domain definition finds no region or no envelope;
  // reporting thresholds (E-values need Z) are the caller's. `parsed`, when given, holds the target's Forward and
  // Backward parser rows computed elsewhere (the GPU), which are then not computed again. The same as
  // before_envelopes, rescore_envelope for each request and after_envelopes.
  std::optional<Plan7SequenceHit> after_filters(const std::uint8_t* codes, std::size_t L, float filter_nats,
                                                Plan7PipelineCounts& counts, Workspace& ws,
                                                const ParserSpecials* parsed = nullptr) const {
    std::optional<PendingTarget> pending = before_envelopes(codes, L, filter_nats, counts, ws, parsed);
    if (!pending) return std::nullopt;
    const std::vector<EnvelopeRequest>& requests = pending->plan.requests;
    std::vector<RescoredEnvelope> rescored(requests.size());
    for (std::size_t e = 0; e < requests.size(); ++e) rescore_envelope(requests[e], L, ws, rescored[e]);
    ws.odds.set_mode(true, static_cast<std::int64_t>(L));
    return after_envelopes(codes, std::move(*pending), std::move(rescored));
  }

  // after_filters' first half: Forward against F3, Backward and domain definition up to the envelopes
  // (DomainDefiner::plan). Nothing when after_filters returns no hit before rescoring an envelope.
  std::optional<PendingTarget> before_envelopes(const std::uint8_t* codes, std::size_t L, float filter_nats,
                                                Plan7PipelineCounts& counts, Workspace& ws,
                                                const ParserSpecials* parsed = nullptr) const {
    CUDP_PLAN7_NO_FP_CONTRACT
    if (L == 0) return std::nullopt;
    prepare(ws, L);
    const int n = static_cast<int>(L);
    PendingTarget pending;
    pending.L = L;
    pending.nullsc = null1_score(static_cast<std::int64_t>(L));
    if (parsed != nullptr) {
      adopt_parser_specials(ws.forward, ws.odds.M(), ws.odds.Q(), n, parsed->forward, true, true);
      pending.fwdsc = forward_parser_score(ws.odds, ws.forward);
    } else {
      pending.fwdsc = striped_forward(ws.odds, codes, n, ws.forward, false);
    }
    const float filtered_bits = static_cast<float>((pending.fwdsc - filter_nats) / detail::kLn2);
    const double P = exponential_survival(filtered_bits, stats_.forward_tau, stats_.forward_lambda);
    if (P > options_.F3) return std::nullopt;
    counts.passed_forward += 1;
    counts.residues_passed_forward += L;

    if (parsed != nullptr) {
      adopt_parser_specials(ws.backward, ws.odds.M(), ws.odds.Q(), n, parsed->backward, false,
                            parsed->backward_own_scales);
    } else {
      striped_backward(ws.odds, codes, n, ws.forward, ws.backward, false);
    }
    definer_.plan(ws.odds, codes, n, ws.forward, ws.backward, ws.domains, pending.plan);
    // No envelope also means no region.
    if (pending.plan.envelopes.empty()) return std::nullopt;
    return pending;
  }

  // Whether envelopes are rescored with their alignment columns (rescore_envelope's and a device's `columns`).
  bool envelope_columns() const { return options_.alignments; }

  // One envelope of a target of length L rescored on the host, as after_filters does it: ws's odds profile is
  // left in unihit mode for L (the next target's calls reconfigure it).
  void rescore_envelope(const EnvelopeRequest& request, std::size_t L, Workspace& ws, RescoredEnvelope& out) const {
    unihit_odds(request, L, ws);
    cudp::hmmer::rescore_envelope(ws.odds, *alphabet_, request, envelope_columns(), ws.domains.envelope, out);
  }

  // Envelope j of a batch rescored on a device (request: the one it was given), of a target of length L, finished
  // on the host; ws as for rescore_envelope.
  void adopt_envelope(const EnvelopeRequest& request, std::size_t L, const EnvelopeBatch& batch, std::size_t j,
                      Workspace& ws, RescoredEnvelope& out) const {
    unihit_odds(request, L, ws);
    adopt_rescored_envelope(ws.odds, *alphabet_, request, batch, j, ws.domains.envelope.scratch, out);
  }

  // after_filters' second half: `rescored` holds pending.plan's envelopes rescored, in its order. Domain
  // definition's end (DomainDefiner::complete), null2 and the reported scores. `codes`: the target given to
  // before_envelopes.
  std::optional<Plan7SequenceHit> after_envelopes(const std::uint8_t* codes, PendingTarget&& pending,
                                                  std::vector<RescoredEnvelope>&& rescored) const {
    CUDP_PLAN7_NO_FP_CONTRACT
    const std::size_t L = pending.L;
    const int n = static_cast<int>(L);
    const float fwdsc = pending.fwdsc, nullsc = pending.nullsc;
    DomainDefinition dd;
    definer_.complete(codes, std::move(pending.plan), std::move(rescored), dd);
    if (dd.regions == 0 || dd.envelopes == 0) return std::nullopt;  // before_envelopes has returned nothing

    const float log_omega = static_cast<float>(std::log(static_cast<double>(kOmega)));
    float seqbias = 0.0f;
    if (options_.null2) {
      seqbias = detail::easel_sum(dd.null2_scores.data(), L + 1);
      seqbias = hmmer_logsum(0.0f, static_cast<float>(static_cast<double>(log_omega) + seqbias));
    }
    float pre_score = static_cast<float>((fwdsc - nullsc) / detail::kLn2);
    float seq_score = static_cast<float>((fwdsc - (nullsc + seqbias)) / detail::kLn2);

    // The "reconstruction score": the sum of the domains that stay positive after their own null2 correction,
    // replacing the Forward score when it is higher.
    const double flank = std::log(static_cast<double>(static_cast<float>(n) / static_cast<float>(n + 3)));
    float sum_score = 0.0f;
    float sum_bias = 0.0f;
    int covered = 0;
    for (const DomainEnvelope& d : dd.domains) {
      const bool counts_in = options_.null2 ? d.env_nats - d.domcorrection > 0.0f : d.env_nats > 0.0f;
      if (!counts_in) continue;
      sum_score += d.env_nats;
      covered += d.env_to - d.env_from + 1;
      if (options_.null2) sum_bias += d.domcorrection;
    }
    sum_bias =
        options_.null2 ? hmmer_logsum(0.0f, static_cast<float>(static_cast<double>(log_omega) + sum_bias)) : 0.0f;
    sum_score = static_cast<float>(sum_score + (n - covered) * flank);
    const float pre2_score = static_cast<float>((sum_score - nullsc) / detail::kLn2);
    sum_score = static_cast<float>((sum_score - (nullsc + sum_bias)) / detail::kLn2);
    if (covered > 0 && sum_score > seq_score) {
      seq_score = sum_score;
      pre_score = pre2_score;
    }

    Plan7SequenceHit hit;
    hit.pre_bits = pre_score;
    hit.bits = seq_score;
    hit.lnP = exponential_log_survival(seq_score);
    hit.expected_domains = dd.expected;
    hit.regions = dd.regions;
    hit.clustered = dd.clustered;
    hit.overlaps = dd.overlaps;
    hit.envelopes = dd.envelopes;
    hit.domains.reserve(dd.domains.size());
    for (const DomainEnvelope& d : dd.domains) {
      Plan7DomainHit dom;
      dom.env_from = d.env_from;
      dom.env_to = d.env_to;
      dom.ali_from = d.ali_from;
      dom.ali_to = d.ali_to;
      dom.hmm_from = d.hmm_from;
      dom.hmm_to = d.hmm_to;
      dom.env_nats = d.env_nats;
      dom.null2_nats = d.domcorrection;
      const int Ld = d.env_to - d.env_from + 1;
      float bitscore = static_cast<float>(d.env_nats + (n - Ld) * flank);
      const float dombias =
          options_.null2 ? hmmer_logsum(0.0f, static_cast<float>(static_cast<double>(log_omega) + d.domcorrection))
                         : 0.0f;
      bitscore = static_cast<float>((bitscore - (nullsc + dombias)) / detail::kLn2);
      dom.bits = bitscore;
      dom.bias_bits = static_cast<float>(dombias * kLog2Reciprocal);
      dom.lnP = exponential_log_survival(bitscore);
      dom.mean_posterior =
          static_cast<float>(d.expected_correct / (1.0 + std::fabs(static_cast<float>(d.env_to - d.env_from))));
      if (options_.alignments) dom.alignment = alignment_display(d.alignment, consensus_, odds_, *alphabet_, codes);
      hit.domains.push_back(dom);
    }
    return hit;
  }

  std::optional<Plan7SequenceHit> run(const std::uint8_t* codes, std::size_t L, Plan7PipelineCounts& counts,
                                      Workspace& ws) const {
    if (L == 0) {
      counts.targets += 1;
      return std::nullopt;
    }
    const AfterMsv msv = after_msv(codes, L, msv_filter(codes, L, ws), counts, ws);
    if (!msv.passed) return std::nullopt;
    if (msv.run_viterbi && !after_viterbi(L, viterbi_filter(codes, L, ws), msv.filter_nats, counts))
      return std::nullopt;
    return after_filters(codes, L, msv.filter_nats, counts, ws);
  }

  FilterResult msv_filter(const std::uint8_t* codes, std::size_t L, Workspace& ws) const {
    prepare(ws, L);
    return cudp::hmmer::msv_filter(ws.msv, codes, L);
  }
  FilterResult viterbi_filter(const std::uint8_t* codes, std::size_t L, Workspace& ws) const {
    prepare(ws, L);
    return cudp::hmmer::viterbi_filter(ws.viterbi, codes, L);
  }

  const MsvFilterProfile& msv_profile() const { return msv_; }
  const ViterbiFilterProfile& viterbi_profile() const { return viterbi_; }
  const Plan7Profile& profile() const { return profile_; }
  // The probability-space profile of Forward, Backward and domain definition (in multihit mode, length 100).
  const StripedOddsProfile& odds_profile() const { return odds_; }
  const BiasFilter& bias_filter() const { return bias_; }
  const Plan7PipelineOptions& options() const { return options_; }
  int model_length() const { return M_; }
  const std::string& model_name() const { return name_; }

 private:
  double exponential_log_survival(float bits) const {
    const double x = bits;
    if (x < stats_.forward_tau) return 0.0;
    return -static_cast<double>(stats_.forward_lambda) * (x - static_cast<double>(stats_.forward_tau));
  }

  // ws's odds profile in unihit mode for targets of length L, as domain definition rescores envelopes; the
  // request's transitions must be those.
  void unihit_odds(const EnvelopeRequest& request, std::size_t L, Workspace& ws) const {
    if (ws.owner != this) prepare(ws, L);
    const auto length = static_cast<std::int64_t>(L);
    if (ws.odds.length() != length || ws.odds.multihit()) ws.odds.set_mode(false, length);
    const OddsSpecials& a = ws.odds.xf();
    const OddsSpecials& b = request.xf;
    if (a.n_loop != b.n_loop || a.n_move != b.n_move || a.e_loop != b.e_loop || a.e_move != b.e_move ||
        a.c_loop != b.c_loop || a.c_move != b.c_move || a.j_loop != b.j_loop || a.j_move != b.j_move) {
      throw std::invalid_argument("Plan7Pipeline: an envelope request for another target length or mode");
    }
  }

  void prepare(Workspace& ws, std::size_t L) const {
    if (ws.owner != this) {
      ws.profile = profile_;
      ws.msv = msv_;
      ws.viterbi = viterbi_;
      ws.odds = odds_;
      ws.owner = this;
    }
    const auto length = static_cast<std::int64_t>(L);
    if (ws.profile.target_length != length) ws.profile.set_target_length(length);
    if (ws.msv.target_length != length) ws.msv.set_target_length(length);
    if (ws.viterbi.target_length != length) ws.viterbi.set_target_length(length);
    if (ws.odds.length() != length || !ws.odds.multihit()) ws.odds.set_mode(true, length);
  }

  static DomainDefinitionParameters domain_parameters(const Plan7PipelineOptions& options) {
    DomainDefinitionParameters p;
    p.seed = options.seed == 0 ? 42u : options.seed;
    p.alignments = options.alignments;
    return p;
  }

  // p7_FLogsum: log(e^a + e^b) by HMMER's table (1/1000-nat steps), which its null2 corrections use.
  static float hmmer_logsum(float a, float b) {
    static const std::vector<float> table = [] {
      std::vector<float> t(16000);
      for (int i = 0; i < 16000; ++i) {
        t[static_cast<std::size_t>(i)] = static_cast<float>(std::log(1.0 + std::exp(static_cast<double>(-i) / 1000.0)));
      }
      return t;
    }();
    const float max = a > b ? a : b;
    const float min = a > b ? b : a;
    if (min == -std::numeric_limits<float>::infinity() || (max - min) >= 15.7f) return max;
    return max + table[static_cast<std::size_t>(static_cast<int>((max - min) * 1000.0f))];
  }

  static constexpr float kOmega = 1.0f / 256.0f;  // prior probability of the null2 hypothesis
  static constexpr double kLog2Reciprocal = 1.44269504088896341;

  // The filter score of P-value F on a Gumbel survival curve, less a hundredth of a bit: below it P > F for
  // certain (a hundredth of a bit moves P by more than half a percent, its rounding by 1e-15), so the test needs no
  // exponentials; -inf where there is no such score (F = 1).
  static float fails_below_bits(double mu, double lambda, double F) {
    const double x = mu - std::log(-std::log1p(-F)) / lambda;
    return lambda > 0 && std::isfinite(x) ? static_cast<float>(x - 0.01) : -std::numeric_limits<float>::infinity();
  }

  Plan7PipelineOptions options_;
  float msv_fails_below_bits_ = -std::numeric_limits<float>::infinity();
  std::string name_;
  int M_ = 0;
  const Plan7Alphabet* alphabet_;
  std::string consensus_;  // with options_.alignments: the consensus residue of each node, at [k]
  HmmStats stats_;
  Plan7Profile profile_;
  MsvFilterProfile msv_;
  ViterbiFilterProfile viterbi_;
  StripedOddsProfile odds_;
  BiasFilter bias_;
  DomainDefiner definer_;
};

}  // namespace cudp::hmmer
