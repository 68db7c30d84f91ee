// The empirical protein matrices (LG, WAG, JTT) against entries of the published tables, the GY94 codon model's
// structure, the genetic code, reading DNA as codons (stop codons, lengths, ambiguity), codon frequencies (F1X4,
// F3X4), and the rate matrices these give: rows summing to 0, one substitution per unit of time, and transition
// matrices equal to a Taylor-series exp(Qt) where most exchangeabilities are 0.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "cudp/phylo/character_alignment.hpp"
#include "cudp/phylo/eigen_decomposition.hpp"
#include "cudp/phylo/model_spec.hpp"

namespace {

namespace phylo = cudp::phylo;
namespace gc = cudp::phylo::genetic_code;
using phylo::CharacterCoding;

int codon_index(const std::string& letters) {
  int codon = 0;
  for (const char c : letters) codon = codon * 4 + static_cast<int>(gc::nucleotides.find(c));
  return codon;
}

int sense(const std::string& letters) { return gc::sense_of_codon[static_cast<std::size_t>(codon_index(letters))]; }

int amino(char letter) { return static_cast<int>(CharacterCoding::protein().letters().find(letter)); }

phylo::SitePatterns patterns(const std::string& fasta, const CharacterCoding& coding) {
  return phylo::compress_sites(phylo::parse_alignment(fasta, "aln.fa"), coding);
}

std::string error_of(const std::string& fasta, const CharacterCoding& coding) {
  try {
    patterns(fasta, coding);
  } catch (const cudp::io::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// Q's rows sum to 0, off-diagonal entries are s_ij pi_j up to one factor, and -sum pi_i q_ii = 1.
void check_rate_matrix(const phylo::SubstitutionModel& m) {
  const auto n = static_cast<std::size_t>(m.states);
  const auto q = m.rate_matrix();
  double mean = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double row = 0;
    for (std::size_t j = 0; j < n; ++j) {
      row += q[i * n + j];
      if (i == j) continue;
      const double expected = m.exchangeabilities[i * n + j] * m.frequencies[j];
      if (scale == 0 && expected > 0) scale = q[i * n + j] / expected;
      CHECK(q[i * n + j] == Approx(expected * scale).epsilon(1e-12));
    }
    CHECK(row == Approx(0).margin(1e-12));
    mean -= m.frequencies[i] * q[i * n + i];
  }
  CHECK(mean == Approx(1).epsilon(1e-13));
}

// exp(Q t) by scaling and squaring a Taylor series, independent of the eigen-decomposition.
std::vector<double> taylor_exp(const std::vector<double>& q, std::size_t n, double t) {
  int squarings = 0;
  double norm = 0;
  for (std::size_t i = 0; i < n; ++i) norm = std::max(norm, -q[i * n + i] * t * 2);
  while (norm > 0.05) {
    norm /= 2;
    ++squarings;
  }
  const double h = t / std::pow(2.0, squarings);
  std::vector<double> result(n * n, 0.0), term(n * n, 0.0), next(n * n);
  for (std::size_t i = 0; i < n; ++i) result[i * n + i] = term[i * n + i] = 1;
  const auto multiply = [n](const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& out) {
    std::fill(out.begin(), out.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < n; ++k)
        for (std::size_t j = 0; j < n; ++j) out[i * n + j] += a[i * n + k] * b[k * n + j];
  };
  std::vector<double> qh(q);
  for (double& v : qh) v *= h;
  for (int k = 1; k <= 20; ++k) {
    multiply(term, qh, next);
    for (std::size_t x = 0; x < n * n; ++x) result[x] += (term[x] = next[x] / k);
  }
  for (int s = 0; s < squarings; ++s) {
    multiply(result, result, next);
    result.swap(next);
  }
  return result;
}

}  // namespace

TEST_CASE("LG, WAG and JTT hold the published exchangeabilities and frequencies", "[phylo][model]") {
  namespace pm = phylo::protein_models;
  REQUIRE(pm::find("LG") == &pm::lg);
  REQUIRE(pm::find("WAG") == &pm::wag);
  REQUIRE(pm::find("JTT") == &pm::jtt);
  CHECK(pm::find("Poisson") == nullptr);
  // Entries of the tables as published (PAML's lg.dat, wag.dat, jones.dat; JTT as counts).
  CHECK(pm::lg.exchangeability(amino('R'), amino('A')) == 0.425093);
  CHECK(pm::lg.exchangeability(amino('A'), amino('R')) == 0.425093);
  CHECK(pm::lg.exchangeability(amino('V'), amino('I')) == 10.649107);
  CHECK(pm::lg.exchangeability(amino('E'), amino('C')) == 0.003499);
  CHECK(pm::lg.exchangeability(amino('V'), amino('Y')) == 0.249313);
  CHECK(pm::wag.exchangeability(amino('D'), amino('N')) == 542.94200);
  CHECK(pm::wag.exchangeability(amino('W'), amino('A')) == 11.31330);
  CHECK(pm::wag.exchangeability(amino('V'), amino('I')) == 782.13000);
  CHECK(pm::jtt.exchangeability(amino('N'), amino('A')) == 54);
  CHECK(pm::jtt.exchangeability(amino('E'), amino('D')) == 767);
  CHECK(pm::jtt.exchangeability(amino('V'), amino('I')) == 961);
  // Frequencies as IQ-TREE 2 uses them (the published ones rescaled to sum to 1).
  CHECK(pm::lg.frequencies[static_cast<std::size_t>(amino('A'))] == 0.07906592);
  CHECK(pm::lg.frequencies[static_cast<std::size_t>(amino('L'))] == 0.0990809);
  CHECK(pm::wag.frequencies[static_cast<std::size_t>(amino('L'))] == 0.08620901);
  CHECK(pm::jtt.frequencies[static_cast<std::size_t>(amino('W'))] == 0.01426099);
  for (const auto* table : {&pm::lg, &pm::wag, &pm::jtt}) {
    double total = 0;
    for (const double f : table->frequencies) total += f;
    CHECK(total == Approx(1).margin(1e-7));
    for (const double s : table->lower) CHECK(s > 0);
  }
}

TEST_CASE("Protein models take their own frequencies unless +F, +FQ or +F{...} says otherwise", "[phylo][model]") {
  const auto data = patterns(">a\nARNDCQEGHILKMFPSTWYV\n>b\nAAAAAAAAAAAAAAAAAAAA\n", CharacterCoding::protein());
  for (const char* name : {"LG", "WAG", "JTT"}) {
    const auto spec = phylo::parse_model(name);
    CHECK(spec.protein());
    const auto m = phylo::make_model(spec, CharacterCoding::protein(), data);
    const auto* table = phylo::protein_models::find(name);
    double total = 0;
    for (const double f : table->frequencies) total += f;
    for (int i = 0; i < 20; ++i) {
      CHECK(m.frequencies[static_cast<std::size_t>(i)] ==
            Approx(table->frequencies[static_cast<std::size_t>(i)] / total));
      for (int j = 0; j < 20; ++j)
        if (i != j) CHECK(m.exchangeability(i, j) == table->exchangeability(i, j));
    }
    check_rate_matrix(m);
  }
  const auto counted = phylo::make_model(phylo::parse_model("WAG+F"), CharacterCoding::protein(), data);
  CHECK(counted.frequencies[static_cast<std::size_t>(amino('A'))] == Approx(21.0 / 40));
  CHECK(counted.frequencies[static_cast<std::size_t>(amino('W'))] == Approx(1.0 / 40));
  const auto equal = phylo::make_model(phylo::parse_model("JTT+FQ"), CharacterCoding::protein(), data);
  CHECK(equal.frequencies[3] == Approx(0.05));
  CHECK_THROWS_WITH(phylo::parse_model("LG{1}"), Catch::Contains("LG takes 0 parameter(s), got 1"));
  CHECK_THROWS_WITH(phylo::make_model(phylo::parse_model("LG"), CharacterCoding::dna(),
                                      patterns(">a\nACGT\n>b\nACGT\n", CharacterCoding::dna())),
                    Catch::Contains("LG is a protein model, but the data are DNA"));
}

TEST_CASE("A state the data never show gets a frequency of almost 0, from the most frequent one", "[phylo][model]") {
  // 11 amino acids (C and W among them) never occur: IQ-TREE 2 computes as if their frequencies were 0.
  const auto data = patterns(">a\nAAAARNDQ\n>b\nAAAAEGHI\n", CharacterCoding::protein());
  const auto m = phylo::make_model(phylo::parse_model("LG+F"), CharacterCoding::protein(), data);
  CHECK(m.frequencies[static_cast<std::size_t>(amino('C'))] == 1e-10);
  CHECK(m.frequencies[static_cast<std::size_t>(amino('W'))] == 1e-10);
  double total = 0;
  for (const double f : m.frequencies) total += f;
  CHECK(total == Approx(1).epsilon(1e-15));
  CHECK(m.frequencies[static_cast<std::size_t>(amino('A'))] == Approx(0.5 - 11 * 1e-10).epsilon(1e-15));
  const auto e = phylo::decompose(m);  // no division by a zero frequency
  std::vector<double> p(400);
  e.transition_matrix(0.3, p.data());
  for (int i = 0; i < 20; ++i) {
    double row = 0;
    for (int j = 0; j < 20; ++j) row += p[static_cast<std::size_t>(i * 20 + j)];
    CHECK(row == Approx(1).epsilon(1e-9));
  }
}

TEST_CASE("The universal genetic code numbers 61 sense codons as IQ-TREE does", "[phylo][codon]") {
  int stops = 0;
  for (int c = 0; c < gc::codons; ++c) stops += gc::is_stop(c);
  CHECK(stops == 3);
  CHECK(gc::is_stop(codon_index("TAA")));
  CHECK(gc::is_stop(codon_index("TAG")));
  CHECK(gc::is_stop(codon_index("TGA")));
  CHECK(sense("TAA") == -1);
  CHECK(sense("AAA") == 0);
  CHECK(sense("TAC") == 48);  // after GTT, TAA is left out
  CHECK(sense("TTT") == 60);
  CHECK(gc::codon_name(gc::codon_of_sense[48]) == "TAC");
  CHECK(gc::amino_acid_of_sense(sense("ATG")) == 'M');
  CHECK(gc::amino_acid_of_sense(sense("TGG")) == 'W');
  CHECK(gc::amino_acid_of_sense(sense("AGA")) == 'R');
  CHECK(gc::amino_acid_of_sense(sense("TTA")) == 'L');
  const CharacterCoding& codon = CharacterCoding::codon();
  CHECK(codon.states() == 61);
  CHECK(codon.width() == 3);
  CHECK(codon.letters().substr(0, 11) == "AAA AAC AAG");
  CHECK(codon.code_count() == 62);
}

TEST_CASE("DNA reads as codons: stop codons and lengths are errors, gapped or ambiguous codons unknown",
          "[phylo][codon]") {
  const CharacterCoding& codon = CharacterCoding::codon();
  const int any = codon.states();
  CHECK(codon.codon_code('A', 'T', 'G') == sense("ATG"));
  CHECK(codon.codon_code('A', 'U', 'G') == sense("ATG"));
  CHECK(codon.codon_code('t', 'g', 'g') == sense("TGG"));
  CHECK(codon.codon_code('T', 'A', 'A') == CharacterCoding::stop_codon);
  CHECK(codon.codon_code('U', 'G', 'A') == CharacterCoding::stop_codon);
  CHECK(codon.codon_code('-', '-', '-') == any);
  CHECK(codon.codon_code('N', 'N', 'N') == any);
  CHECK(codon.codon_code('A', 'C', '-') == any);  // IQ-TREE: "ambiguous character", read as unknown
  CHECK(codon.codon_code('A', 'R', 'G') == any);
  CHECK(codon.codon_code('T', 'A', 'R') == any);  // both TAA and TAG are stops; still unknown, as in IQ-TREE
  CHECK(codon.codon_code('A', 'J', 'G') == CharacterCoding::invalid);

  const auto p = patterns(">a\nATGAAA---\n>b\nATGAAGAC-\n>c\nATGAAATTT\n", codon);
  REQUIRE(p.pattern_of_site.size() == 3);
  REQUIRE(p.patterns == 3);
  CHECK(p.code(0, 0) == sense("ATG"));
  CHECK(p.code(1, 1) == sense("AAG"));
  CHECK(p.code(0, 2) == any);
  CHECK(p.code(1, 2) == any);
  CHECK(p.code(2, 2) == sense("TTT"));

  CHECK(error_of(">a\nATGAAAC\n>b\nATGAAAC\n", codon) ==
        "aln.fa: 7 sites are not a whole number of codons (codon data need a multiple of 3)");
  CHECK(error_of(">a\nATGAAA\n>b\nATGTAG\n>c\nATGAAA\n", codon) ==
        "aln.fa:3: taxon b, codon 2 (sites 4-6): TAG is a stop codon (universal genetic code)");
  CHECK(error_of(">a\nATGAAA\n>b\nATGAJA\n", codon) ==
        "aln.fa:3: taxon b, site 5 in codon 2 (sites 4-6): 'J' is not a nucleotide");
}

TEST_CASE("GY94: one-nucleotide changes only, kappa on transitions, omega on amino-acid changes", "[phylo][codon]") {
  const double omega = 0.3, kappa = 2.5;
  const auto s = phylo::gy94_exchangeabilities(omega, kappa);
  const auto at = [&](const std::string& a, const std::string& b) {
    return s[static_cast<std::size_t>(sense(a) * 61 + sense(b))];
  };
  CHECK(at("CTT", "CTC") == kappa);          // Leu -> Leu, T <-> C
  CHECK(at("CTT", "CTA") == 1.0);            // Leu -> Leu, T <-> A
  CHECK(at("AAA", "AGA") == kappa * omega);  // Lys -> Arg, A <-> G
  CHECK(at("AAA", "ACA") == omega);          // Lys -> Thr, A <-> C
  CHECK(at("AAA", "GAA") == kappa * omega);  // Lys -> Glu, first position
  CHECK(at("TTA", "CTA") == kappa);          // Leu -> Leu at the first position
  CHECK(at("AAA", "CCA") == 0);              // two positions
  CHECK(at("AAA", "CCC") == 0);              // three
  CHECK(at("AAA", "AAA") == 0);
  std::size_t nonzero = 0;
  for (int i = 0; i < 61; ++i)
    for (int j = 0; j < 61; ++j) {
      CHECK(s[static_cast<std::size_t>(i * 61 + j)] == s[static_cast<std::size_t>(j * 61 + i)]);
      nonzero += s[static_cast<std::size_t>(i * 61 + j)] > 0;
    }
  // Each sense codon has 9 one-step neighbours; 23 of those 549 are stop codons (TAA has 7 sense neighbours, TAG and
  // TGA 8 each): 263 pairs of sense codons one change apart.
  CHECK(nonzero == 2 * 263);

  const auto data = patterns(">a\nATGAAACTT\n>b\nATGAAGCTC\n>c\nATTGAACTA\n", CharacterCoding::codon());
  for (const char* text : {"GY{0.3,2.5}", "GY{0.3,2.5}+F3X4", "GY{0.3,2.5}+F1X4", "GY{0.3,2.5}+FQ", "GY94"}) {
    const auto spec = phylo::parse_model(text);
    CHECK(spec.codon());
    const auto m = phylo::make_model(spec, CharacterCoding::codon(), data);
    REQUIRE(m.states == 61);
    check_rate_matrix(m);
  }
  const auto defaults = phylo::make_model(phylo::parse_model("GY"), CharacterCoding::codon(), data);
  CHECK(defaults.exchangeability(sense("CTT"), sense("CTC")) == 2.0);  // kappa 2, omega 1
  CHECK(defaults.exchangeability(sense("AAA"), sense("ACA")) == 1.0);
  CHECK(defaults.frequencies[static_cast<std::size_t>(sense("ATG"))] == Approx(2.0 / 9));  // GY's default: +F

  CHECK_THROWS_WITH(phylo::parse_model("GY{1,2,3}"), Catch::Contains("GY takes 2 parameter(s), got 3"));
  CHECK_THROWS_WITH(phylo::parse_model("HKY+F3X4"), Catch::Contains("+F3X4 is for codon models"));
  CHECK_THROWS_WITH(phylo::make_model(phylo::parse_model("GY"), CharacterCoding::dna(),
                                      patterns(">a\nACGT\n>b\nACGT\n", CharacterCoding::dna())),
                    Catch::Contains("GY is a codon model, but the data are DNA (give --data codon)"));
  CHECK_THROWS_WITH(phylo::make_model(phylo::parse_model("HKY"), CharacterCoding::codon(), data),
                    Catch::Contains("HKY is a DNA model, but the data are codon"));
}

TEST_CASE("F1X4 and F3X4 multiply nucleotide frequencies, normalised over the sense codons", "[phylo][codon]") {
  // One site, codons ATG, ATG, TTT, and a gap that counts for nothing.
  const auto data = patterns(">a\nATG\n>b\nATG\n>c\nTTT\n>d\n---\n", CharacterCoding::codon());
  const auto f3 = phylo::codon_frequencies_from_nucleotides(data, true);
  // Positions: A 2/3, T 1/3; T; G 2/3, T 1/3. No product is a stop codon.
  CHECK(f3[static_cast<std::size_t>(sense("ATG"))] == Approx(4.0 / 9));
  CHECK(f3[static_cast<std::size_t>(sense("ATT"))] == Approx(2.0 / 9));
  CHECK(f3[static_cast<std::size_t>(sense("TTG"))] == Approx(2.0 / 9));
  CHECK(f3[static_cast<std::size_t>(sense("TTT"))] == Approx(1.0 / 9));
  CHECK(f3[static_cast<std::size_t>(sense("AAA"))] == 0);
  // Pooled: A 2/9, G 2/9, T 5/9; the stop codons' share (TAA, TAG, TGA) goes to the others.
  const auto f1 = phylo::codon_frequencies_from_nucleotides(data, false);
  const double a = 2.0 / 9, g = 2.0 / 9, t = 5.0 / 9;
  const double sense_total = 1 - (t * a * a + t * a * g + t * g * a);
  CHECK(f1[static_cast<std::size_t>(sense("TTT"))] == Approx(t * t * t / sense_total));
  CHECK(f1[static_cast<std::size_t>(sense("AGT"))] == Approx(a * g * t / sense_total));
  CHECK(f1[static_cast<std::size_t>(sense("CAT"))] == 0);
  double total = 0;
  for (const double f : f1) total += f;
  CHECK(total == Approx(1).epsilon(1e-15));
  // In a model, the codons never seen get 1e-10 rather than 0.
  const auto m = phylo::make_model(phylo::parse_model("GY+F3X4"), CharacterCoding::codon(), data);
  CHECK(m.frequencies[static_cast<std::size_t>(sense("AAA"))] == 1e-10);
}

TEST_CASE("GY94 transition matrices equal a Taylor-series exp(Qt), stochastic and reversible", "[phylo][codon]") {
  // Codon frequencies from unequal nucleotide frequencies, so that no two are alike.
  const double nt[3][4] = {{0.1, 0.2, 0.3, 0.4}, {0.35, 0.15, 0.3, 0.2}, {0.22, 0.28, 0.18, 0.32}};
  phylo::SubstitutionModel m;
  m.states = 61;
  m.exchangeabilities = phylo::gy94_exchangeabilities(0.25, 3.2);
  double total = 0;
  for (int s = 0; s < 61; ++s) {
    const int c = gc::codon_of_sense[static_cast<std::size_t>(s)];
    m.frequencies.push_back(nt[0][gc::nucleotide(c, 0)] * nt[1][gc::nucleotide(c, 1)] * nt[2][gc::nucleotide(c, 2)]);
    total += m.frequencies.back();
  }
  for (double& f : m.frequencies) f /= total;
  check_rate_matrix(m);
  const auto q = m.rate_matrix();
  const auto e = phylo::decompose(m);
  std::vector<double> p(61 * 61);
  for (const double t : {0.001, 0.1, 0.8, 3.0}) {
    e.transition_matrix(t, p.data());
    const auto expected = taylor_exp(q, 61, t);
    double worst = 0;
    for (std::size_t x = 0; x < p.size(); ++x) worst = std::max(worst, std::abs(p[x] - expected[x]));
    CHECK(worst < 1e-13);
    for (std::size_t i = 0; i < 61; ++i) {
      double row = 0;
      for (std::size_t j = 0; j < 61; ++j) {
        row += p[i * 61 + j];
        CHECK(m.frequencies[i] * p[i * 61 + j] == Approx(m.frequencies[j] * p[j * 61 + i]).margin(1e-16));
      }
      CHECK(row == Approx(1).epsilon(1e-13));
    }
  }
}

TEST_CASE("+FO parses as frequencies to optimise, counted from the data to start with", "[phylo][model]") {
  const auto spec = phylo::parse_model("HKY{2}+FO+G4");
  CHECK(spec.frequencies == phylo::FrequencyChoice::optimized);
  const auto data = patterns(">a\nAACG\n>b\nAATT\n", CharacterCoding::dna());
  const auto m = phylo::make_model(spec, CharacterCoding::dna(), data);
  const auto counted = phylo::make_model(phylo::parse_model("HKY{2}+F"), CharacterCoding::dna(), data);
  CHECK(m.frequencies == counted.frequencies);
  CHECK(phylo::parse_model("LG+FO").frequencies == phylo::FrequencyChoice::optimized);
  CHECK(phylo::parse_model("GY+F1X4").frequencies == phylo::FrequencyChoice::codon_f1x4);
  CHECK(phylo::parse_model("GY+F3X4+G4").frequencies == phylo::FrequencyChoice::codon_f3x4);
}
