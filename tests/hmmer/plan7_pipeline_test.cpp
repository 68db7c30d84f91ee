// hmmsearch's pipeline after the filters on the host: the pieces against independent computations (libm exp, the
// log-space reference DP in double, a direct two-state HMM in double), the invariants of posterior decoding, and
// the pipeline's stage logic and thread safety. tests/oracle/hmmsearch_pipeline.py compares the whole pipeline
// with hmmsearch itself.
#include "cudp/hmmer/plan7_pipeline.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cudp/io/fasta.hpp"
#include "cudp/hmmer/hmm_file.hpp"
#include "cudp/hmmer/striped_tables.hpp"
#include "../support/test_data.hpp"
#include "random_plan7.hpp"

namespace {

using cudp::hmmer::StripedMatrix;

struct Example {
  cudp::hmmer::HmmModel hmm;
  cudp::hmmer::NullModel null_model;
  cudp::io::SequenceSet targets;
};

Example load(const std::string& model, const std::string& sequences) {
  Example e;
  e.hmm = cudp::hmmer::read_hmm_file(cudp::test::hmmer_examples_file(model)).at(0);
  const auto& alphabet = cudp::hmmer::plan7_alphabet_of(e.hmm.alphabet);
  e.null_model = cudp::hmmer::default_null_model(alphabet);
  e.targets = cudp::io::read_fasta(cudp::test::hmmer_examples_file(sequences), alphabet.sequence_alphabet);
  return e;
}

std::vector<std::uint8_t> random_protein(std::mt19937& rng, std::size_t L) {
  const auto& f = cudp::hmmer::hmmer_amino_background();
  std::discrete_distribution<int> pick(f.begin(), f.end());
  std::vector<std::uint8_t> codes(L);
  for (auto& c : codes) c = static_cast<std::uint8_t>(pick(rng));
  return codes;
}

double log_sum(double a, double b) {
  if (a < b) std::swap(a, b);
  if (b == -std::numeric_limits<double>::infinity()) return a;
  return a + std::log1p(std::exp(b - a));
}

}  // namespace

TEST_CASE("Easel's SSE exponential is within a few ulp of exp, and exact at the edges", "[plan7][pipeline]") {
  REQUIRE(cudp::hmmer::easel_sse_expf(-std::numeric_limits<float>::infinity()) == 0.0f);
  REQUIRE(cudp::hmmer::easel_sse_expf(0.0f) == 1.0f);
  REQUIRE(cudp::hmmer::easel_sse_expf(-100.0f) == 0.0f);
  for (float x = -30.0f; x < 5.0f; x += 0.01337f) {
    const double exact = std::exp(static_cast<double>(x));
    REQUIRE(std::fabs(cudp::hmmer::easel_sse_expf(x) - exact) <= 4.0 * exact * std::numeric_limits<float>::epsilon());
  }
}

TEST_CASE("HMMER's float mode flushes subnormals to zero, on the calling thread only", "[plan7][pipeline]") {
#ifdef CUDP_HAS_MXCSR
  const auto halve_smallest_normal = [] {
    volatile float smallest = std::numeric_limits<float>::min();
    volatile float half = 0.5f;
    return smallest * half;
  };
  float in_mode = -1;
  std::thread([&] {
    cudp::hmmer::use_hmmer_float_mode();
    in_mode = halve_smallest_normal();
  }).join();
  CHECK(in_mode == 0.0f);
  CHECK(halve_smallest_normal() == std::numeric_limits<float>::min() / 2);  // a subnormal, on this thread
#else
  SUCCEED("no MXCSR on this architecture");
#endif
}

TEST_CASE("The biased-composition filter score is the two-state HMM's Forward score", "[plan7][pipeline][hmmer-examples]") {
  const Example e = load("tutorial/Pkinase.hmm", "tutorial/globins45.fa");
  const cudp::hmmer::BiasFilter filter(e.null_model, e.hmm.composition, e.hmm.length);
  const auto& f = e.null_model.frequencies;
  const auto& compo = e.hmm.composition;
  std::mt19937 rng(7);
  std::vector<std::vector<std::uint8_t>> sequences;
  for (std::size_t s = 0; s < e.targets.size(); ++s) {
    sequences.emplace_back(e.targets.data(s), e.targets.data(s) + e.targets.length(s));
  }
  sequences.push_back(random_protein(rng, 300));
  // A run of the residue the model's composition favours most over the background: as biased as it gets.
  int favourite = 0;
  for (int x = 1; x < 20; ++x) {
    if (compo[x] / f[x] > compo[favourite] / f[favourite]) favourite = x;
  }
  sequences.push_back(std::vector<std::uint8_t>(120, static_cast<std::uint8_t>(favourite)));
  for (const auto& x : sequences) {
    const std::size_t L = x.size();
    // Independent computation in double, log space: states 0 (background) and 1 (model composition).
    const double p1 = static_cast<double>(L) / static_cast<double>(L + 1);
    const double L1 = e.hmm.length / 8.0;
    const double t[2][2] = {{p1, 1.0 - p1}, {1.0 / (L1 + 1.0), L1 / (L1 + 1.0)}};
    double a0 = std::log(0.999) + std::log(f[x[0]] / f[x[0]]), a1 = std::log(0.001) + std::log(compo[x[0]] / f[x[0]]);
    for (std::size_t i = 1; i < L; ++i) {
      const double n0 = log_sum(a0 + std::log(t[0][0]), a1 + std::log(t[1][0]));
      const double n1 = log_sum(a0 + std::log(t[0][1]), a1 + std::log(t[1][1])) + std::log(compo[x[i]] / f[x[i]]);
      a0 = n0;
      a1 = n1;
    }
    const double expected = log_sum(a0, a1) + L * std::log(p1) + std::log(1.0 - p1);
    REQUIRE(filter.score(x.data(), L) == Approx(expected).margin(1e-3 + 1e-5 * L));
  }
  // That run scores far above null1 under the bias filter.
  const std::size_t L = sequences.back().size();
  REQUIRE(filter.score(sequences.back().data(), L) > cudp::hmmer::null1_score(static_cast<std::int64_t>(L)) + 5.0f);
}

TEST_CASE("The composition computed from the model matches the file's COMPO line", "[plan7][pipeline][hmmer-examples]") {
  for (const char* model :
       {"tutorial/globins4.hmm", "tutorial/Pkinase.hmm", "tutorial/MADE1.hmm", "testsuite/SMC_N.hmm.gz"}) {
    Example e;
    e.hmm = cudp::hmmer::read_hmm_file(cudp::test::hmmer_examples_file(model)).at(0);
    REQUIRE(e.hmm.composition.size() == static_cast<std::size_t>(e.hmm.residues()));
    const std::vector<float> computed = cudp::hmmer::model_composition(e.hmm);
    for (int x = 0; x < e.hmm.residues(); ++x) {
      // COMPO holds -ln p with five decimals: relative precision 1e-5, plus the file's own rounding of the model.
      REQUIRE(computed[static_cast<std::size_t>(x)] ==
              Approx(e.hmm.composition[static_cast<std::size_t>(x)]).epsilon(2e-4));
    }
  }
}

TEST_CASE("Striped Forward equals the reference Forward; Backward, decoding and domain posteriors agree with it",
          "[plan7][pipeline][hmmer-examples]") {
  for (const char* model : {"tutorial/globins4.hmm", "tutorial/fn3.hmm", "testsuite/Caudal_act.hmm.gz"}) {
    const Example e = load(model, "tutorial/globins45.fa");
    cudp::hmmer::Plan7Profile profile = cudp::hmmer::configure_profile(e.hmm, e.null_model);
    cudp::hmmer::StripedOddsProfile om(profile);
    StripedMatrix fwd, bck, fwd_full, bck_full, pp;
    cudp::hmmer::DomainPosteriors posteriors;
    for (std::size_t s = 0; s < e.targets.size(); s += 7) {
      const std::uint8_t* x = e.targets.data(s);
      const int L = static_cast<int>(e.targets.length(s));
      profile.set_target_length(L);
      om.set_mode(true, L);
      const double reference = cudp::hmmer::forward_score<double>(profile, x, static_cast<std::size_t>(L));
      const float parser = cudp::hmmer::striped_forward(om, x, L, fwd, false);
      const float full = cudp::hmmer::striped_forward(om, x, L, fwd_full, true);
      REQUIRE(parser == full);  // the two matrix layouts compute the same floats
      REQUIRE(parser == Approx(reference).margin(2e-3));
      cudp::hmmer::striped_backward(om, x, L, fwd, bck, false);
      cudp::hmmer::striped_backward(om, x, L, fwd_full, bck_full, true);
      // Backward's total (row 0, N) with its scale factors is the same likelihood.
      const double backward_total = bck.totscale + std::log(bck.x(0, StripedMatrix::kN));
      REQUIRE(backward_total == Approx(parser).margin(2e-3));
      REQUIRE(bck.x(0, StripedMatrix::kN) == bck_full.x(0, StripedMatrix::kN));
      REQUIRE(cudp::hmmer::domain_posteriors(om, fwd, bck, posteriors));
      REQUIRE(posteriors.btot[static_cast<std::size_t>(L)] ==
              Approx(posteriors.etot[static_cast<std::size_t>(L)]).margin(1e-3));
      REQUIRE(cudp::hmmer::posterior_decoding(om, fwd_full, bck_full, pp));
      for (int i = 1; i <= L; ++i) {
        // Each residue is emitted by exactly one state: M, I, N, J or C.
        double total = pp.x(i, StripedMatrix::kN) + pp.x(i, StripedMatrix::kJ) + pp.x(i, StripedMatrix::kC);
        for (int k = 1; k <= om.M(); ++k)
          total += pp.node(i, k, StripedMatrix::kM) + (k < om.M() ? pp.node(i, k, StripedMatrix::kI) : 0.0f);
        REQUIRE(total == Approx(1.0).margin(2e-3));
        REQUIRE(posteriors.mocc[static_cast<std::size_t>(i)] ==
                Approx(1.0 - pp.x(i, StripedMatrix::kN) - pp.x(i, StripedMatrix::kJ) - pp.x(i, StripedMatrix::kC))
                    .margin(1e-4));
      }
    }
  }
}

TEST_CASE("Easel's fast generator restarts identically on reseeding and is uniform", "[plan7][pipeline]") {
  cudp::hmmer::EaselFastRandom a(42), b(7);
  std::vector<double> first;
  double sum = 0;
  for (int i = 0; i < 20000; ++i) {
    const double u = a.next();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    if (i < 10) first.push_back(u);
    sum += u;
  }
  REQUIRE(sum / 20000 == Approx(0.5).margin(0.01));
  b.init(42);
  for (double u : first) REQUIRE(b.next() == u);
  float p[3] = {0.0f, 0.0f, 0.0f};  // all-zero paths: uniform choice, never a failure
  for (int i = 0; i < 100; ++i) {
    p[0] = p[1] = p[2] = 0.0f;
    const int c = cudp::hmmer::choose_normalized(a, p, 3);
    REQUIRE(c >= 0);
    REQUIRE(c < 3);
  }
}

TEST_CASE("Pipeline stages: counts never grow, --max passes all, split calls equal run()", "[plan7][pipeline][hmmer-examples]") {
  const Example e = load("tutorial/globins4.hmm", "tutorial/globins45.fa");
  std::mt19937 rng(11);
  std::vector<std::vector<std::uint8_t>> targets;
  for (std::size_t s = 0; s < e.targets.size(); ++s)
    targets.emplace_back(e.targets.data(s), e.targets.data(s) + e.targets.length(s));
  for (int n = 0; n < 30; ++n) targets.push_back(random_protein(rng, 50 + 37 * static_cast<std::size_t>(n)));
  targets.emplace_back();  // zero length: counted as a target, never passes

  const cudp::hmmer::Plan7Pipeline pipeline(e.hmm, e.null_model);
  cudp::hmmer::Plan7Pipeline::Workspace ws;
  cudp::hmmer::Plan7PipelineCounts counts, split_counts;
  for (const auto& x : targets) {
    const auto hit = pipeline.run(x.data(), x.size(), counts, ws);
    // The same decisions from the three stage calls.
    std::optional<cudp::hmmer::Plan7SequenceHit> split;
    const auto msv =
        pipeline.after_msv(x.data(), x.size(), pipeline.msv_filter(x.data(), x.size(), ws), split_counts, ws);
    if (msv.passed &&
        (!msv.run_viterbi || pipeline.after_viterbi(x.size(), pipeline.viterbi_filter(x.data(), x.size(), ws),
                                                    msv.filter_nats, split_counts))) {
      split = pipeline.after_filters(x.data(), x.size(), msv.filter_nats, split_counts, ws);
    }
    REQUIRE(hit.has_value() == split.has_value());
    if (hit) {
      REQUIRE(hit->bits == split->bits);
      REQUIRE(hit->domains.size() == split->domains.size());
      REQUIRE(hit->bits <= hit->pre_bits);  // null2 only lowers a score
      for (const auto& d : hit->domains) {
        REQUIRE(1 <= d.env_from);
        REQUIRE(d.env_from <= d.ali_from);
        REQUIRE(d.ali_from <= d.ali_to);
        REQUIRE(d.ali_to <= d.env_to);
        REQUIRE(d.env_to <= static_cast<int>(x.size()));
        REQUIRE(1 <= d.hmm_from);
        REQUIRE(d.hmm_from <= d.hmm_to);
        REQUIRE(d.hmm_to <= e.hmm.length);
        REQUIRE(d.mean_posterior > 0.0f);
        REQUIRE(d.mean_posterior <= 1.0f + 1e-5f);
      }
    }
  }
  REQUIRE(counts.targets == targets.size());
  REQUIRE(counts.targets >= counts.passed_msv);
  REQUIRE(counts.passed_msv >= counts.passed_bias);
  REQUIRE(counts.passed_bias >= counts.passed_viterbi);
  REQUIRE(counts.passed_viterbi >= counts.passed_forward);
  REQUIRE(counts.passed_forward >= e.targets.size() - 2);  // the globins themselves pass
  REQUIRE(counts.passed_msv < counts.targets);             // the random background mostly does not
  REQUIRE(split_counts.targets == counts.targets);
  REQUIRE(split_counts.passed_msv == counts.passed_msv);
  REQUIRE(split_counts.passed_bias == counts.passed_bias);
  REQUIRE(split_counts.passed_viterbi == counts.passed_viterbi);
  REQUIRE(split_counts.passed_forward == counts.passed_forward);

  cudp::hmmer::Plan7PipelineOptions max;
  max.max = true;
  const cudp::hmmer::Plan7Pipeline everything(e.hmm, e.null_model, max);
  cudp::hmmer::Plan7PipelineCounts all;
  for (const auto& x : targets) everything.run(x.data(), x.size(), all, ws);
  const std::uint64_t nonempty = targets.size() - 1;
  REQUIRE(all.passed_msv == nonempty);
  REQUIRE(all.passed_bias == nonempty);
  REQUIRE(all.passed_viterbi == nonempty);
  REQUIRE(all.passed_forward == nonempty);
}

TEST_CASE("The MSV decision, with its shortcut for certain failures, is the P-value's test", "[plan7][pipeline][hmmer-examples]") {
  const Example e = load("tutorial/globins4.hmm", "tutorial/globins45.fa");
  for (const std::int64_t L : {1, 2, 37, 350, 65535, 65536, 100000})
    REQUIRE(cudp::hmmer::null1_score_by_table(L) == cudp::hmmer::null1_score(L));
  REQUIRE(std::isnan(cudp::hmmer::null1_score_by_table(0)));  // as null1_score's 0 * log(0); no target uses it
  const cudp::hmmer::HmmStats& stats = *e.hmm.stats;
  for (const double F1 : {0.02, 1e-9, 0.5, 1.0}) {
    cudp::hmmer::Plan7PipelineOptions options;
    options.F1 = F1;
    options.F2 = 1.0;  // whatever passes MSV has passed Viterbi: the decision is MSV's alone
    options.bias_filter = false;
    const cudp::hmmer::Plan7Pipeline pipeline(e.hmm, e.null_model, options);
    cudp::hmmer::Plan7Pipeline::Workspace ws;
    cudp::hmmer::Plan7PipelineCounts counts;
    const std::vector<std::uint8_t> target(300, 3);
    const float nullsc = cudp::hmmer::null1_score(300);
    // Scores in steps of a thousandth of a bit (and a few ulps) over 40 bits around the F1 threshold.
    const double threshold = stats.msv_mu - std::log(-std::log1p(-std::min(F1, 0.999999))) / stats.msv_lambda;
    std::size_t passed = 0, failed = 0;
    for (int k = -20000; k <= 20000; ++k) {
      for (const int ulps : {-1, 0, 1}) {
        float nats = static_cast<float>((threshold + k * 1e-3) * 0.69314718055994529) + nullsc;
        for (int u = 0; u < std::abs(ulps); ++u) nats = std::nextafter(nats, ulps > 0 ? INFINITY : -INFINITY);
        const double P = cudp::hmmer::filter_gumbel_survival(cudp::hmmer::filter_bits(nats, nullsc), stats.msv_mu,
                                                             stats.msv_lambda);
        const auto r = pipeline.after_msv(target.data(), target.size(), {cudp::hmmer::FilterStatus::Ok, nats}, counts, ws);
        INFO("F1 " << F1 << ", " << k * 1e-3 << " bits from the threshold, P " << P);
        REQUIRE(r.passed == !(P > F1));
        REQUIRE((pipeline.msv_may_pass(300, nats) || !r.passed));  // what may_pass drops certainly fails
        ++(r.passed ? passed : failed);
      }
    }
    if (F1 < 1.0) CHECK((passed > 0 && failed > 0));
  }
}

// The GPU sets aside the targets whose MSV J value is below the least one of their length: exactly those for which
// msv_may_pass is false, for every length and J value, in both lanes' tables.
template <class Lane>
void check_least_j(const cudp::hmmer::Plan7Pipeline& pipeline, std::uint32_t max_length) {
  const cudp::hmmer::MsvFilterProfile& profile = pipeline.msv_profile();
  const auto shape = cudp::hmmer::striped_shape_for(profile.M, 1, Lane::width);
  const auto tables = cudp::hmmer::stripe_msv<Lane>(profile, shape, max_length);
  const auto least = cudp::hmmer::msv_least_j_by_length(profile, tables, pipeline.msv_test());
  REQUIRE(least.size() == max_length + 1);
  std::size_t kept = 0, dropped = 0;
  for (std::uint32_t L = 0; L <= max_length; ++L) {
    for (int j = 0; j <= 255; ++j) {
      typename cudp::hmmer::Plan7Msv<Lane>::Result raw;
      raw.xJ = j;
      const cudp::hmmer::FilterResult r = cudp::hmmer::msv_filter_result(profile, tables, L, raw);
      INFO("L " << L << ", xJ " << j << ", least " << least[L] << ", nats " << r.nats);
      REQUIRE((j >= least[L]) == pipeline.msv_may_pass(L, r.nats));
      ++(j >= least[L] ? kept : dropped);
    }
  }
  CHECK((kept > 0 && dropped > 0));
  typename cudp::hmmer::Plan7Msv<Lane>::Result overflow;
  overflow.status = cudp::recurrences::StripedStatus::Overflow;
  REQUIRE(pipeline.msv_may_pass(7, cudp::hmmer::msv_filter_result(profile, tables, 7, overflow).nats));
}

TEST_CASE("The least MSV J value per length keeps exactly the targets that may pass", "[plan7][pipeline][hmmer-examples]") {
  for (const char* model : {"tutorial/globins4.hmm", "tutorial/Pkinase.hmm"}) {
    const Example e = load(model, "tutorial/globins45.fa");
    for (const double F1 : {0.02, 1e-6, 0.9}) {
      INFO(model << ", F1 " << F1);
      cudp::hmmer::Plan7PipelineOptions options;
      options.F1 = F1;
      const cudp::hmmer::Plan7Pipeline pipeline(e.hmm, e.null_model, options);
      check_least_j<cudp::lanes::s16x2>(pipeline, 3000);
      check_least_j<cudp::lanes::u8x4>(pipeline, 3000);
    }
  }
  const Example e = load("tutorial/globins4.hmm", "tutorial/globins45.fa");
  cudp::hmmer::Plan7PipelineOptions max;
  max.max = true;
  const cudp::hmmer::Plan7Pipeline everything(e.hmm, e.null_model, max);
  const auto& profile = everything.msv_profile();
  const auto tables = cudp::hmmer::stripe_msv<cudp::lanes::s16x2>(
      profile, cudp::hmmer::striped_shape_for(profile.M, 1, cudp::lanes::s16x2::width), 500);
  const auto least = cudp::hmmer::msv_least_j_by_length(profile, tables, everything.msv_test());
  for (std::uint32_t L = 1; L <= 500; ++L) REQUIRE(least[L] == 0);  // --max: every target goes on
}

TEST_CASE("Two planted domains are found as two envelopes around them", "[plan7][pipeline][hmmer-examples]") {
  const Example e = load("tutorial/globins4.hmm", "tutorial/globins45.fa");
  std::mt19937 rng(3);
  const std::vector<std::uint8_t> a(e.targets.data(0), e.targets.data(0) + e.targets.length(0));
  const std::vector<std::uint8_t> b(e.targets.data(1), e.targets.data(1) + e.targets.length(1));
  std::vector<std::uint8_t> x = random_protein(rng, 80);
  const int a_from = static_cast<int>(x.size()) + 1;
  x.insert(x.end(), a.begin(), a.end());
  const int a_to = static_cast<int>(x.size());
  const auto linker = random_protein(rng, 120);
  x.insert(x.end(), linker.begin(), linker.end());
  const int b_from = static_cast<int>(x.size()) + 1;
  x.insert(x.end(), b.begin(), b.end());
  const int b_to = static_cast<int>(x.size());
  const auto tail = random_protein(rng, 60);
  x.insert(x.end(), tail.begin(), tail.end());

  const cudp::hmmer::Plan7Pipeline pipeline(e.hmm, e.null_model);
  cudp::hmmer::Plan7Pipeline::Workspace ws;
  cudp::hmmer::Plan7PipelineCounts counts;
  const auto hit = pipeline.run(x.data(), x.size(), counts, ws);
  REQUIRE(hit);
  REQUIRE(hit->domains.size() == 2);
  REQUIRE(hit->expected_domains == Approx(2.0).margin(0.2));
  REQUIRE(std::abs(hit->domains[0].env_from - a_from) <= 10);
  REQUIRE(std::abs(hit->domains[0].env_to - a_to) <= 10);
  REQUIRE(std::abs(hit->domains[1].env_from - b_from) <= 10);
  REQUIRE(std::abs(hit->domains[1].env_to - b_to) <= 10);
  REQUIRE(hit->domains[0].bits > 100.0f);
  REQUIRE(hit->domains[1].bits > 100.0f);
}

TEST_CASE("Domain definition from parser rows computed elsewhere equals the host's own", "[plan7][pipeline][hmmer-examples]") {
  using cudp::hmmer::StripedMatrix;
  cudp::hmmer::use_hmmer_float_mode();
  const Example e = load("tutorial/globins4.hmm", "tutorial/globins45.fa");
  const cudp::hmmer::Plan7Pipeline pipeline(e.hmm, e.null_model);
  cudp::hmmer::Plan7Pipeline::Workspace ws;
  cudp::hmmer::StripedOddsProfile om = pipeline.odds_profile();
  StripedMatrix fwd, bck;
  int hits = 0;
  for (std::size_t s = 0; s < e.targets.size(); ++s) {
    const std::uint8_t* x = e.targets.data(s);
    const std::size_t L = e.targets.length(s);
    // The rows as a device hands them over: the host's own parsers, copied out.
    om.set_mode(true, static_cast<std::int64_t>(L));
    cudp::hmmer::striped_forward(om, x, static_cast<int>(L), fwd, false);
    cudp::hmmer::striped_backward(om, x, static_cast<int>(L), fwd, bck, false);
    std::vector<float> forward_rows = fwd.specials;
    const std::vector<float> backward_rows = bck.specials;
    const cudp::hmmer::ParserSpecials parsed{forward_rows.data(), backward_rows.data(), bck.has_own_scales};
    cudp::hmmer::Plan7PipelineCounts own_counts, parsed_counts;
    const auto own = pipeline.after_filters(x, L, 0.0f, own_counts, ws);
    const auto given = pipeline.after_filters(x, L, 0.0f, parsed_counts, ws, &parsed);
    REQUIRE(own.has_value() == given.has_value());
    REQUIRE(own_counts.passed_forward == parsed_counts.passed_forward);
    if (!own) continue;
    ++hits;
    REQUIRE(own->bits == given->bits);
    REQUIRE(own->pre_bits == given->pre_bits);
    REQUIRE(own->expected_domains == given->expected_domains);
    REQUIRE(own->domains.size() == given->domains.size());
    for (std::size_t d = 0; d < own->domains.size(); ++d) {
      REQUIRE(own->domains[d].env_from == given->domains[d].env_from);
      REQUIRE(own->domains[d].env_to == given->domains[d].env_to);
      REQUIRE(own->domains[d].bits == given->domains[d].bits);
      REQUIRE(own->domains[d].null2_nats == given->domains[d].null2_nats);
    }
    // The rows are what the score comes from: a different last C changes it.
    forward_rows[L * StripedMatrix::kSpecials + StripedMatrix::kC] *= 2.0f;
    cudp::hmmer::Plan7PipelineCounts changed_counts;
    const auto changed = pipeline.after_filters(x, L, 0.0f, changed_counts, ws, &parsed);
    REQUIRE(changed);
    REQUIRE(changed->pre_bits != own->pre_bits);
  }
  REQUIRE(hits >= 40);
}

TEST_CASE("after_filters in halves, envelopes rescored between them across targets in any order, is after_filters",
          "[plan7][pipeline][hmmer-examples]") {
  cudp::hmmer::use_hmmer_float_mode();
  long envelopes = 0, clustered = 0, hits = 0;
  for (const char* model : {"tutorial/globins4.hmm", "tutorial/fn3.hmm", "tutorial/Pkinase.hmm",
                            "testsuite/RRM_1.hmm.gz"}) {
    const Example e = load(model, "tutorial/globins45.fa");
    for (const bool max : {false, true}) {
      cudp::hmmer::Plan7PipelineOptions options;
      options.max = max;
      options.alignments = true;
      const cudp::hmmer::Plan7Pipeline pipeline(e.hmm, e.null_model, options);
      std::vector<std::vector<std::uint8_t>> targets;
      for (std::size_t s = 0; s < e.targets.size(); ++s)
        targets.emplace_back(e.targets.data(s), e.targets.data(s) + e.targets.length(s));
      // Repeated runs of the model's consensus: regions of several domains.
      for (auto& t : cudp::test::random_targets(pipeline.profile(), 16, 3 * e.hmm.length, 5)) targets.push_back(t);

      cudp::hmmer::Plan7Pipeline::Workspace whole_ws, first_ws, envelope_ws;
      cudp::hmmer::Plan7PipelineCounts whole_counts, split_counts;
      std::vector<std::optional<cudp::hmmer::Plan7SequenceHit>> whole(targets.size());
      std::vector<std::optional<cudp::hmmer::Plan7Pipeline::PendingTarget>> pending(targets.size());
      std::vector<std::vector<cudp::hmmer::RescoredEnvelope>> rescored(targets.size());
      std::vector<std::pair<std::size_t, std::size_t>> order;  // (target, envelope)
      for (std::size_t t = 0; t < targets.size(); ++t) {
        const std::uint8_t* x = targets[t].data();
        const std::size_t L = targets[t].size();
        const float filter_nats = cudp::hmmer::null1_score(static_cast<std::int64_t>(L));
        whole[t] = pipeline.after_filters(x, L, filter_nats, whole_counts, whole_ws);
        // One workspace for every target's first half: the pending state must own what it keeps.
        pending[t] = pipeline.before_envelopes(x, L, filter_nats, split_counts, first_ws);
        REQUIRE(whole[t].has_value() == pending[t].has_value());
        if (!pending[t]) continue;
        rescored[t].resize(pending[t]->plan.requests.size());
        for (std::size_t k = 0; k < rescored[t].size(); ++k) order.emplace_back(t, k);
      }
      REQUIRE(split_counts.passed_forward == whole_counts.passed_forward);
      REQUIRE(split_counts.residues_passed_forward == whole_counts.residues_passed_forward);
      // All targets' envelopes from the last to the first on one workspace, as a worker meeting the device in the
      // middle of the longest-first list takes them.
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const auto& p = *pending[it->first];
        pipeline.rescore_envelope(p.plan.requests[it->second], p.L, envelope_ws, rescored[it->first][it->second]);
      }
      if (!order.empty()) {
        const auto& p = *pending[order.front().first];
        cudp::hmmer::RescoredEnvelope unused;
        REQUIRE_THROWS_AS(pipeline.rescore_envelope(p.plan.requests.front(), p.L + 1, envelope_ws, unused),
                          std::invalid_argument);
      }
      for (std::size_t t = 0; t < targets.size(); ++t) {
        if (!pending[t]) continue;
        INFO(model << (max ? " --max" : "") << ", target " << t);
        const auto split =
            pipeline.after_envelopes(targets[t].data(), std::move(*pending[t]), std::move(rescored[t]));
        REQUIRE(split.has_value());
        const cudp::hmmer::Plan7SequenceHit& a = *whole[t];
        const cudp::hmmer::Plan7SequenceHit& b = *split;
        REQUIRE(a.bits == b.bits);
        REQUIRE(a.pre_bits == b.pre_bits);
        REQUIRE(a.lnP == b.lnP);
        REQUIRE(a.expected_domains == b.expected_domains);
        REQUIRE(a.regions == b.regions);
        REQUIRE(a.clustered == b.clustered);
        REQUIRE(a.overlaps == b.overlaps);
        REQUIRE(a.envelopes == b.envelopes);
        REQUIRE(a.domains.size() == b.domains.size());
        for (std::size_t d = 0; d < a.domains.size(); ++d) {
          const auto& x = a.domains[d];
          const auto& y = b.domains[d];
          REQUIRE(x.env_from == y.env_from);
          REQUIRE(x.env_to == y.env_to);
          REQUIRE(x.ali_from == y.ali_from);
          REQUIRE(x.ali_to == y.ali_to);
          REQUIRE(x.hmm_from == y.hmm_from);
          REQUIRE(x.hmm_to == y.hmm_to);
          REQUIRE(x.env_nats == y.env_nats);
          REQUIRE(x.null2_nats == y.null2_nats);
          REQUIRE(x.bits == y.bits);
          REQUIRE(x.bias_bits == y.bias_bits);
          REQUIRE(x.lnP == y.lnP);
          REQUIRE(x.mean_posterior == y.mean_posterior);
          REQUIRE(x.alignment);
          REQUIRE(y.alignment);
          REQUIRE(x.alignment->model == y.alignment->model);
          REQUIRE(x.alignment->match == y.alignment->match);
          REQUIRE(x.alignment->target == y.alignment->target);
          REQUIRE(x.alignment->posterior == y.alignment->posterior);
        }
        ++hits;
        envelopes += a.envelopes;
        clustered += a.clustered;
      }
    }
  }
  INFO(hits << " hits, " << envelopes << " envelopes, " << clustered << " clustered regions");
  REQUIRE(hits > 100);
  REQUIRE(clustered > 5);
}

TEST_CASE("The pipeline's const methods run concurrently with one workspace per thread", "[plan7][pipeline][hmmer-examples]") {
  const Example e = load("testsuite/RRM_1.hmm.gz", "tutorial/globins45.fa");
  cudp::hmmer::Plan7PipelineOptions options;
  options.max = true;  // every target through domain definition
  const cudp::hmmer::Plan7Pipeline pipeline(e.hmm, e.null_model, options);
  std::vector<float> serial(e.targets.size(), 0.0f);
  {
    cudp::hmmer::Plan7Pipeline::Workspace ws;
    cudp::hmmer::Plan7PipelineCounts counts;
    for (std::size_t s = 0; s < e.targets.size(); ++s) {
      const auto hit = pipeline.run(e.targets.data(s), e.targets.length(s), counts, ws);
      serial[s] = hit ? hit->bits : -1000.0f;
    }
  }
  std::vector<float> parallel(e.targets.size(), 0.0f);
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      cudp::hmmer::Plan7Pipeline::Workspace ws;
      cudp::hmmer::Plan7PipelineCounts counts;
      for (std::size_t s = next++; s < e.targets.size(); s = next++) {
        const auto hit = pipeline.run(e.targets.data(s), e.targets.length(s), counts, ws);
        parallel[s] = hit ? hit->bits : -1000.0f;
      }
    });
  }
  for (auto& t : threads) t.join();
  REQUIRE(parallel == serial);
}
