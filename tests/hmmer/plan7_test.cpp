#include "cudp/hmmer/plan7.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "cudp/io/fasta.hpp"
#include "cudp/hmmer/hmm_file.hpp"
#include "../support/test_data.hpp"

using cudp::hmmer::Plan7Mode;
using cudp::hmmer::Plan7Profile;
using cudp::hmmer::HmmAlphabet;
using cudp::hmmer::HmmModel;

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

// A core model built in place: node-major probabilities, as the reader stores them.
HmmModel make_model(HmmAlphabet alphabet, int M) {
  HmmModel model;
  model.name = "handmade";
  model.alphabet = alphabet;
  model.length = M;
  const auto K = static_cast<std::size_t>(model.residues());
  const auto nodes = static_cast<std::size_t>(M) + 1;
  model.match.assign(nodes * K, 0.0f);
  model.insert.assign(nodes * K, 1.0f / static_cast<float>(K));
  model.transitions.assign(nodes * cudp::hmmer::kTransitionCount, 0.0f);
  return model;
}

void set_transitions(HmmModel& model, int k, std::vector<float> t) {
  for (std::size_t i = 0; i < t.size(); ++i) model.transitions[static_cast<std::size_t>(k) * 7 + i] = t[i];
}

void set_match(HmmModel& model, int k, std::vector<float> probabilities) {
  for (std::size_t x = 0; x < probabilities.size(); ++x) {
    model.match[static_cast<std::size_t>(k) * probabilities.size() + x] = probabilities[x];
  }
}

// A three-node DNA model with every kind of transition in use.
HmmModel small_dna_model() {
  HmmModel model = make_model(HmmAlphabet::Dna, 3);
  set_transitions(model, 0, {0.75f, 0.05f, 0.20f, 0.6f, 0.4f, 1.0f, 0.0f});
  set_transitions(model, 1, {0.70f, 0.10f, 0.20f, 0.5f, 0.5f, 0.6f, 0.4f});
  set_transitions(model, 2, {0.90f, 0.05f, 0.05f, 0.3f, 0.7f, 0.3f, 0.7f});
  set_transitions(model, 3, {0.95f, 0.05f, 0.00f, 0.5f, 0.5f, 1.0f, 0.0f});
  set_match(model, 1, {0.7f, 0.1f, 0.1f, 0.1f});
  set_match(model, 2, {0.1f, 0.6f, 0.2f, 0.1f});
  set_match(model, 3, {0.05f, 0.05f, 0.1f, 0.8f});
  return model;
}

double log_add(double a, double b) {
  if (a < b) std::swap(a, b);
  if (b == minus_infinity) return a;
  return a + std::log1p(std::exp(b - a));
}

// Sums (or maximises) over every state path of the configured model by explicit recursion over states, with no
// dynamic programming table: an independent statement of what Forward and Viterbi compute. Exponential in L; for
// tiny cases only. N, C, J emit on their self-loops, M and I on entry, D and the other specials are silent.
class PathEnumerator {
 public:
  PathEnumerator(const Plan7Profile& profile, std::vector<std::uint8_t> sequence, bool best_path)
      : p_(profile), x_(std::move(sequence)), best_(best_path) {}

  double total() { return from_n(0); }

 private:
  std::size_t L() const { return x_.size(); }
  double combine(double a, double b) const { return best_ ? std::max(a, b) : log_add(a, b); }
  double t(int k, cudp::hmmer::HmmTransition which) const { return p_.transition(k, which); }

  double enter_m(int k, std::size_t i) {
    if (i >= L()) return minus_infinity;
    return p_.match_score(k, x_[i]) + from_m(k, i + 1);
  }
  double enter_i(int k, std::size_t i) {
    if (i >= L()) return minus_infinity;
    return p_.insert_score(k, x_[i]) + from_i(k, i + 1);
  }
  double from_n(std::size_t i) {
    double s = p_.n.move + from_b(i);
    if (i < L()) s = combine(s, p_.n.loop + from_n(i + 1));
    return s;
  }
  double from_b(std::size_t i) {
    double s = minus_infinity;
    for (int k = 1; k <= p_.M; ++k) s = combine(s, p_.entry[static_cast<std::size_t>(k)] + enter_m(k, i));
    return s;
  }
  double from_m(int k, std::size_t i) {
    double s = from_e(i);  // local exit, probability 1
    if (k < p_.M) {
      s = combine(s, t(k, cudp::hmmer::kMM) + enter_m(k + 1, i));
      s = combine(s, t(k, cudp::hmmer::kMI) + enter_i(k, i));
      s = combine(s, t(k, cudp::hmmer::kMD) + from_d(k + 1, i));
    }
    return s;
  }
  double from_i(int k, std::size_t i) {
    return combine(t(k, cudp::hmmer::kIM) + enter_m(k + 1, i), t(k, cudp::hmmer::kII) + enter_i(k, i));
  }
  double from_d(int k, std::size_t i) {
    double s = from_e(i);
    if (k < p_.M) {
      s = combine(s, t(k, cudp::hmmer::kDM) + enter_m(k + 1, i));
      s = combine(s, t(k, cudp::hmmer::kDD) + from_d(k + 1, i));
    }
    return s;
  }
  double from_e(std::size_t i) { return combine(p_.e.move + from_c(i), p_.e.loop + from_j(i)); }
  double from_c(std::size_t i) { return i < L() ? p_.c.loop + from_c(i + 1) : static_cast<double>(p_.c.move); }
  double from_j(std::size_t i) {
    double s = p_.j.move + from_b(i);
    if (i < L()) s = combine(s, p_.j.loop + from_j(i + 1));
    return s;
  }

  const Plan7Profile& p_;
  std::vector<std::uint8_t> x_;
  bool best_;
};

}  // namespace

TEST_CASE("Plan7 alphabets follow Easel's codes, synonyms and degeneracies", "[plan7]") {
  const auto& amino = cudp::hmmer::plan7_amino();
  CHECK(amino.K == 20);
  CHECK(amino.Kp == 29);
  CHECK(std::string(amino.symbols) == "ACDEFGHIKLMNPQRSTVWY-BJZOUX*~");
  const std::string protein_text = ">s\nACDYbjzouX*y\n";
  const auto set = cudp::io::parse_fasta(protein_text.data(), protein_text.size(), "s.fa", amino.sequence_alphabet);
  CHECK(std::vector<std::uint8_t>(set.residues.begin(), set.residues.end()) ==
        std::vector<std::uint8_t>{0, 1, 2, 19, 21, 22, 23, 24, 25, 26, 27, 19});
  const std::string gapped = ">s\nAC-D\n";
  CHECK_THROWS_AS(cudp::io::parse_fasta(gapped.data(), gapped.size(), "s.fa", amino.sequence_alphabet),
                  cudp::io::InputError);
  CHECK(amino.degenerate[21] == ((1u << 2) | (1u << 11)));  // B: D or N
  CHECK(amino.degenerate[25] == (1u << 1));                 // U: scored as C
  CHECK(amino.degenerate[24] == (1u << 8));                 // O: scored as K
  CHECK(amino.degenerate[26] == (1u << 20) - 1);            // X: anything

  const auto& dna = cudp::hmmer::plan7_dna();
  CHECK(std::string(dna.symbols) == "ACGT-RYMKSWHBVDN*~");
  const std::string dna_text = ">s\nacgtUXIRn\n";
  const auto dna_set = cudp::io::parse_fasta(dna_text.data(), dna_text.size(), "s.fa", dna.sequence_alphabet);
  CHECK(std::vector<std::uint8_t>(dna_set.residues.begin(), dna_set.residues.end()) ==
        std::vector<std::uint8_t>{0, 1, 2, 3, 3, 15, 0, 5, 15});
  CHECK(dna.degenerate[11] == 0b1011u);  // H: A, C or T
  const auto& rna = cudp::hmmer::plan7_rna();
  CHECK(rna.sequence_alphabet.encode('T') == 3);
}

TEST_CASE("local entry follows match occupancy, normalised over all fragments", "[plan7]") {
  const HmmModel model = small_dna_model();
  const auto null_model = cudp::hmmer::default_null_model(cudp::hmmer::plan7_dna());
  const Plan7Profile profile = cudp::hmmer::configure_profile(model, null_model);
  // Occupancies worked by hand: M1 unless B -> D1; then M_k is reached from M/I or picked up again from D.
  const double occ1 = 0.75 + 0.05;
  const double occ2 = occ1 * (0.7 + 0.1) + (1 - occ1) * 0.6;
  const double occ3 = occ2 * (0.9 + 0.05) + (1 - occ2) * 0.3;
  const double Z = occ1 * 3 + occ2 * 2 + occ3 * 1;
  CHECK(profile.entry[1] == Approx(std::log(occ1 / Z)).margin(1e-6));
  CHECK(profile.entry[2] == Approx(std::log(occ2 / Z)).margin(1e-6));
  CHECK(profile.entry[3] == Approx(std::log(occ3 / Z)).margin(1e-6));

  // Without deletions every node is occupied and each of the M(M+1)/2 fragments gets the same weight.
  HmmModel ungapped = make_model(HmmAlphabet::Dna, 4);
  for (int k = 0; k <= 4; ++k) set_transitions(ungapped, k, {0.9f, 0.1f, 0.0f, 0.5f, 0.5f, 1.0f, 0.0f});
  for (int k = 1; k <= 4; ++k) set_match(ungapped, k, {0.25f, 0.25f, 0.25f, 0.25f});
  const Plan7Profile flat = cudp::hmmer::configure_profile(ungapped, null_model);
  for (int k = 1; k <= 4; ++k) CHECK(flat.entry[static_cast<std::size_t>(k)] == Approx(std::log(2.0 / 20)));
}

TEST_CASE("transitions, emissions and the length model of a configured profile", "[plan7]") {
  HmmModel model = make_model(HmmAlphabet::Amino, 2);
  set_transitions(model, 0, {0.9f, 0.05f, 0.05f, 0.5f, 0.5f, 1.0f, 0.0f});
  set_transitions(model, 1, {0.8f, 0.1f, 0.1f, 0.4f, 0.6f, 0.7f, 0.3f});
  set_transitions(model, 2, {0.9f, 0.1f, 0.0f, 0.4f, 0.6f, 1.0f, 0.0f});
  std::vector<float> probabilities(20);
  for (int x = 0; x < 20; ++x) probabilities[static_cast<std::size_t>(x)] = static_cast<float>(x + 1) / 210.0f;
  set_match(model, 1, probabilities);
  set_match(model, 2, probabilities);
  const auto null_model = cudp::hmmer::default_null_model(cudp::hmmer::plan7_amino());
  const auto& f = null_model.frequencies;
  CHECK(f[0] == 0.0787945f);  // A
  CHECK(f[18] == 0.0114135f);  // W
  const Plan7Profile profile = cudp::hmmer::configure_profile(model, null_model);

  CHECK(profile.transition(1, cudp::hmmer::kMM) == Approx(std::log(0.8)));
  CHECK(profile.transition(1, cudp::hmmer::kDD) == Approx(std::log(0.3)));
  CHECK(profile.transition(0, cudp::hmmer::kMM) == -std::numeric_limits<float>::infinity());
  CHECK(profile.transition(2, cudp::hmmer::kMM) == -std::numeric_limits<float>::infinity());

  const auto s = [&](int x) { return std::log(static_cast<double>(probabilities[static_cast<std::size_t>(x)]) / f[static_cast<std::size_t>(x)]); };
  CHECK(profile.match_score(1, 0) == Approx(s(0)));
  CHECK(profile.match_score(2, 19) == Approx(s(19)));
  // Degenerate codes: background-weighted mean of the scores they stand for. B = D|N, J = I|L, Z = E|Q.
  CHECK(profile.match_score(1, 21) == Approx((f[2] * s(2) + f[11] * s(11)) / (f[2] + f[11])));
  CHECK(profile.match_score(1, 22) == Approx((f[7] * s(7) + f[9] * s(9)) / (f[7] + f[9])));
  CHECK(profile.match_score(1, 23) == Approx((f[3] * s(3) + f[13] * s(13)) / (f[3] + f[13])));
  CHECK(profile.match_score(1, 24) == Approx(s(8)));  // O as K
  CHECK(profile.match_score(1, 25) == Approx(s(1)));  // U as C
  double any = 0, weight = 0;
  for (int x = 0; x < 20; ++x) any += f[static_cast<std::size_t>(x)] * s(x), weight += f[static_cast<std::size_t>(x)];
  CHECK(profile.match_score(1, 26) == Approx(any / weight));
  for (const int unscorable : {20, 27, 28}) {
    CHECK(profile.match_score(1, unscorable) == -std::numeric_limits<float>::infinity());
    CHECK(profile.insert_score(1, unscorable) == -std::numeric_limits<float>::infinity());
  }
  // Inserts score as the background, whatever the file says; there is no I_M.
  CHECK(profile.insert_score(1, 0) == 0.0f);
  CHECK(profile.insert_score(1, 26) == 0.0f);
  CHECK(profile.insert_score(2, 0) == -std::numeric_limits<float>::infinity());

  Plan7Profile multihit = profile;
  multihit.set_target_length(300);
  CHECK(std::exp(multihit.n.loop) == Approx(300.0 / 303.0));
  CHECK(std::exp(multihit.j.move) == Approx(3.0 / 303.0));
  CHECK(std::exp(multihit.c.loop) == Approx(300.0 / 303.0));
  CHECK(std::exp(multihit.e.loop) == Approx(0.5));
  CHECK(std::exp(multihit.e.move) == Approx(0.5));

  Plan7Profile unihit = cudp::hmmer::configure_profile(model, null_model, Plan7Mode::UnihitLocal, 300);
  CHECK(std::exp(unihit.n.loop) == Approx(300.0 / 302.0));
  CHECK(unihit.e.loop == -std::numeric_limits<float>::infinity());
  CHECK(unihit.e.move == 0.0f);

  CHECK(cudp::hmmer::null1_score(300) == Approx(300 * std::log(300.0 / 301.0) + std::log(1.0 / 301.0)));
}

TEST_CASE("Viterbi and Forward equal the best and the sum over all state paths", "[plan7]") {
  const HmmModel model = small_dna_model();
  const auto null_model = cudp::hmmer::default_null_model(cudp::hmmer::plan7_dna());
  const std::vector<std::vector<std::uint8_t>> sequences = {
      {0}, {3}, {0, 1}, {1, 3}, {0, 1, 3}, {3, 3, 0}, {0, 15, 3}, {2, 2, 2, 2}, {0, 1, 3, 0, 1}};
  for (const Plan7Mode mode : {Plan7Mode::MultihitLocal, Plan7Mode::UnihitLocal}) {
    Plan7Profile profile = cudp::hmmer::configure_profile(model, null_model, mode);
    for (const auto& sequence : sequences) {
      CAPTURE(static_cast<int>(mode), sequence);
      profile.set_target_length(static_cast<std::int64_t>(sequence.size()));
      const double all_paths = PathEnumerator(profile, sequence, false).total();
      const double best_path = PathEnumerator(profile, sequence, true).total();
      CHECK(cudp::hmmer::forward_score<double>(profile, sequence.data(), sequence.size()) ==
            Approx(all_paths).epsilon(1e-10));
      CHECK(cudp::hmmer::viterbi_score<double>(profile, sequence.data(), sequence.size()) ==
            Approx(best_path).epsilon(1e-10));
      CHECK(cudp::hmmer::forward_score(profile, sequence.data(), sequence.size()) == Approx(all_paths).margin(1e-4));
      CHECK(cudp::hmmer::viterbi_score(profile, sequence.data(), sequence.size()) == Approx(best_path).margin(1e-4));
      CHECK(best_path <= all_paths);
    }
  }
}

TEST_CASE("the DP refuses a profile configured for another length", "[plan7]") {
  Plan7Profile profile =
      cudp::hmmer::configure_profile(small_dna_model(), cudp::hmmer::default_null_model(cudp::hmmer::plan7_dna()));
  const std::vector<std::uint8_t> sequence{0, 1, 2};
  CHECK_THROWS_AS(cudp::hmmer::forward_score(profile, sequence.data(), sequence.size()), std::invalid_argument);
  CHECK_NOTHROW(cudp::hmmer::score_target(profile, sequence.data(), sequence.size()));
  CHECK_THROWS_AS(cudp::hmmer::configure_profile(small_dna_model(),
                                                 cudp::hmmer::default_null_model(cudp::hmmer::plan7_amino())),
                  std::invalid_argument);
}

TEST_CASE("score distributions: Gumbel and exponential tails", "[plan7]") {
  using cudp::hmmer::exponential_survival;
  using cudp::hmmer::gumbel_survival;
  CHECK(gumbel_survival(2.0, 1.0, 0.7) == Approx(1 - std::exp(-std::exp(-0.7))));
  CHECK(gumbel_survival(60.0, -5.0, 0.7) == Approx(std::exp(-0.7 * 65.0)));  // the tail beyond double's 1 - x
  CHECK(exponential_survival(10.0, -3.0, 0.7) == Approx(std::exp(-0.7 * 13.0)));
  CHECK(exponential_survival(-4.0, -3.0, 0.7) == 1.0);
}

TEST_CASE("globins4 against HBB_HUMAN scores what hmmsearch 3.3.2 reports", "[plan7][hmmer-examples]") {
  // hmmsearch --max --nonull2 -Z 1 --tblout t globins4.hmm HBB_HUMAN (HMMER 3.3.2) reports
  //   HBB_HUMAN - globins4 - 8.5e-69 216.7 ...
  const HmmModel model = cudp::hmmer::read_hmm_file(cudp::test::hmmer_examples_file("tutorial/globins4.hmm")).at(0);
  const auto& alphabet = cudp::hmmer::plan7_amino();
  Plan7Profile profile = cudp::hmmer::configure_profile(model, cudp::hmmer::default_null_model(alphabet));
  const auto targets = cudp::io::read_fasta(cudp::test::hmmer_examples_file("tutorial/HBB_HUMAN"), alphabet.sequence_alphabet);
  REQUIRE(targets.size() == 1);
  REQUIRE(targets.length(0) == 146);
  const auto scores = cudp::hmmer::score_target<double>(profile, targets.data(0), targets.length(0));
  CHECK(std::fabs(scores.forward_bits - 216.7) <= 0.051);
  CHECK(scores.forward_pvalue == Approx(8.5e-69).epsilon(0.06));
  CHECK(scores.viterbi_bits < scores.forward_bits);
  CHECK(scores.viterbi_bits > scores.forward_bits - 5);
  const auto single = cudp::hmmer::score_target<float>(profile, targets.data(0), targets.length(0));
  CHECK(single.forward_bits == Approx(scores.forward_bits).margin(1e-3));
}
