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
// come back: after_msv, after_viterbi, after_filters. run() does all of it on the host.
//
// Zero-length targets: hmmsearch counts them as targets and skips them; every call here does the same (counts
// targets, never passes a stage, returns no hit).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../io/hmm_file.hpp"
#include "null_model.hpp"
#include "plan7_bias_filter.hpp"
#include "plan7_filter_reference.hpp"
#include "plan7_filters.hpp"
#include "plan7_profile.hpp"
#include "plan7_reference.hpp"

namespace cudp::bio {

struct Plan7PipelineOptions {
  double F1 = 0.02, F2 = 1e-3, F3 = 1e-5;
  bool bias_filter = true;
  bool null2 = true;
  bool max = false;  // --max: every filter passes, as hmmsearch --max
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

// One domain (an envelope), coordinates 1-based and inclusive.
struct Plan7DomainHit {
  int env_from = 0, env_to = 0, ali_from = 0, ali_to = 0, hmm_from = 0, hmm_to = 0;
  float env_nats = 0;     // Forward score of the envelope alone (unihit, length model of the whole target)
  float null2_nats = 0;   // the domain's null2 correction before the omega prior (HMMER's domcorrection)
  float bits = 0;         // domain score as hmmsearch reports it
  float bias_bits = 0;    // the domain's bias column
  double lnP = 0;         // natural log of the domain's P-value (E-value = exp(lnP) * domZ)
  float mean_posterior = 0;  // mean posterior probability of the aligned residues (HMMER's oasc / alignment length)
  bool reported = false, included = false;  // set by the caller's thresholding
};

struct Plan7SequenceHit {
  std::size_t target = 0;  // the caller's index; after_filters leaves it 0
  float pre_bits = 0;      // score before the null2 correction; the bias column is pre_bits - bits
  float bits = 0;
  double lnP = 0;          // natural log of the P-value (E-value = exp(lnP) * Z)
  float expected_domains = 0;
  int regions = 0, clustered = 0, overlaps = 0, envelopes = 0;
  std::vector<Plan7DomainHit> domains;
};

class Plan7Pipeline {
 public:
  Plan7Pipeline(const io::HmmModel& model, const NullModel& null_model, Plan7PipelineOptions options = {})
      : options_(options), name_(model.name), M_(model.length) {
    if (!model.stats) throw std::invalid_argument("Plan7Pipeline: model '" + model.name + "' has no STATS lines");
    stats_ = *model.stats;
    if (options_.max) {
      options_.F1 = options_.F2 = options_.F3 = 1.0;
      options_.bias_filter = false;
    }
    options_.F1 = std::min(options_.F1, 1.0);
    options_.F2 = std::min(options_.F2, 1.0);
    options_.F3 = std::min(options_.F3, 1.0);
    profile_ = configure_profile(model, null_model, Plan7Mode::MultihitLocal, 400);
    msv_ = make_msv_filter_profile(profile_, 400);
    viterbi_ = make_viterbi_filter_profile(profile_, 400);
    bias_ = BiasFilter(null_model, model.composition.empty() ? model_composition(model) : model.composition, M_);
  }

  // Per-thread scratch: profiles configured for the current target's length, DP matrices.
  struct Workspace {
    Plan7Profile profile;
    MsvFilterProfile msv;
    ViterbiFilterProfile viterbi;
    const Plan7Pipeline* owner = nullptr;  // the pipeline whose profiles these are copies of
  };

  struct AfterMsv {
    bool passed = false;       // passed the MSV and bias filters
    bool run_viterbi = false;  // the Viterbi filter must run (else the target has already passed it)
    float filter_nats = 0;     // the null score for the next stages: the bias filter's, or null1 without it
  };

  // Stage 1 and 2 from an MSV filter result. When the target passes and run_viterbi is false, it has passed the
  // Viterbi stage too (and is counted so): go on to after_filters.
  AfterMsv after_msv(const std::uint8_t* codes, std::size_t L, const FilterResult& msv, Plan7PipelineCounts& counts,
                     Workspace& ws) const {
    (void)ws;
    AfterMsv r;
    counts.targets += 1;
    counts.residues += L;
    if (L == 0) return r;
    const float nullsc = null1_score(static_cast<std::int64_t>(L));
    double P = filter_gumbel_survival(filter_bits(msv.nats, nullsc), stats_.msv_mu, stats_.msv_lambda);
    if (P > options_.F1) return r;
    counts.passed_msv += 1;
    counts.residues_passed_msv += L;
    float filtersc = nullsc;
    if (options_.bias_filter) {
      filtersc = bias_.score(codes, L);
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

  // Stage 4 and everything after it, for a target that passed the filters. No hit when Forward's P-value is
  // above F3, or (as in HMMER) when domain definition finds no region or no envelope.
  //
  // EARLY VERSION: domain definition and null2 are not implemented yet; the hit carries the Forward score
  // (without null2, no domains).
  std::optional<Plan7SequenceHit> after_filters(const std::uint8_t* codes, std::size_t L, float filter_nats,
                                                Plan7PipelineCounts& counts, Workspace& ws) const {
    if (L == 0) return std::nullopt;
    prepare(ws, L);
    const float nullsc = null1_score(static_cast<std::int64_t>(L));
    const float fwdsc = static_cast<float>(forward_score<double>(ws.profile, codes, L));
    const float filter_bits_fwd = static_cast<float>((fwdsc - filter_nats) / detail::kLn2);
    const double P = exponential_survival(filter_bits_fwd, stats_.forward_tau, stats_.forward_lambda);
    if (P > options_.F3) return std::nullopt;
    counts.passed_forward += 1;
    counts.residues_passed_forward += L;
    Plan7SequenceHit hit;
    hit.pre_bits = static_cast<float>((fwdsc - nullsc) / detail::kLn2);
    hit.bits = hit.pre_bits;
    hit.lnP = exponential_log_survival(hit.bits);
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
    if (msv.run_viterbi && !after_viterbi(L, viterbi_filter(codes, L, ws), msv.filter_nats, counts)) return std::nullopt;
    return after_filters(codes, L, msv.filter_nats, counts, ws);
  }

  FilterResult msv_filter(const std::uint8_t* codes, std::size_t L, Workspace& ws) const {
    prepare(ws, L);
    return cudp::bio::msv_filter(ws.msv, codes, L);
  }
  FilterResult viterbi_filter(const std::uint8_t* codes, std::size_t L, Workspace& ws) const {
    prepare(ws, L);
    return cudp::bio::viterbi_filter(ws.viterbi, codes, L);
  }

  const MsvFilterProfile& msv_profile() const { return msv_; }
  const ViterbiFilterProfile& viterbi_profile() const { return viterbi_; }
  const Plan7Profile& profile() const { return profile_; }
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

  void prepare(Workspace& ws, std::size_t L) const {
    if (ws.owner != this) {
      ws.profile = profile_;
      ws.msv = msv_;
      ws.viterbi = viterbi_;
      ws.owner = this;
    }
    const auto length = static_cast<std::int64_t>(L);
    if (ws.profile.target_length != length) ws.profile.set_target_length(length);
    if (ws.msv.target_length != length) ws.msv.set_target_length(length);
    if (ws.viterbi.target_length != length) ws.viterbi.set_target_length(length);
  }

  Plan7PipelineOptions options_;
  std::string name_;
  int M_ = 0;
  io::HmmStats stats_;
  Plan7Profile profile_;
  MsvFilterProfile msv_;
  ViterbiFilterProfile viterbi_;
  BiasFilter bias_;
};

}  // namespace cudp::bio
