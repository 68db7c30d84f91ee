// The GPU's full pairwise distances (device_clustal_distances.cuh) against the host's clustal_distances: every
// distance the same double, on random and adversarial sets.
#include <atomic>
#include <catch2/catch.hpp>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cudp/msa/clustal_distances.hpp"
#include "cudp/msa/device_clustal_distances.cuh"

using namespace cudp::msa;

namespace {

using Sequences = std::vector<std::vector<int>>;

const std::string protein_letters = "ACDEFGHIKLMNPQRSTVWY";
const std::string dna_letters = "ACGT";

std::string random_text(std::mt19937& rng, const std::string& letters, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += letters[rng() % letters.size()];
  return s;
}

// A copy of s with substitutions, small insertions and deletions at rate p, and now and then an input gap.
std::string mutated(std::mt19937& rng, const std::string& s, const std::string& letters, double p) {
  std::uniform_real_distribution<double> u(0, 1);
  std::string out;
  for (const char c : s) {
    const double r = u(rng);
    if (r < p / 3) continue;
    if (r < 2 * p / 3) out += random_text(rng, letters, 1 + rng() % 3);
    if (r > 0.995) out += '-';
    out += r < p ? letters[rng() % letters.size()] : c;
  }
  return out;
}

// Families of mutated copies of a few random ancestors, lengths drawn from [shortest, longest].
Sequences families(std::mt19937& rng, int n, int shortest, int longest, bool dna, double p = 0.3) {
  const std::string& letters = dna ? dna_letters : protein_letters;
  std::vector<std::string> roots;
  for (int r = 0; r < 1 + n / 10; ++r) {
    roots.push_back(random_text(rng, letters, static_cast<std::size_t>(shortest + rng() % (longest - shortest + 1))));
  }
  Sequences seqs;
  for (int s = 0; s < n; ++s) seqs.push_back(clustal_encode(mutated(rng, roots[rng() % roots.size()], letters, p)));
  return seqs;
}

void require_same(const Sequences& seqs, const FullPairwiseSettings& settings, DeviceClustalLimits limits = {}) {
  PairwiseDistanceSettings host_settings;
  host_settings.full = settings;
  const auto host = clustal_distances(seqs, host_settings);
  DeviceClustalDistances gpu(seqs, limits);
  const auto device = gpu.distances(settings);
  REQUIRE(device.size() == seqs.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    for (std::size_t j = 0; j < seqs.size(); ++j) {
      if (device(i, j) != host(i, j)) {
        if (differ++ < 5) {
          std::printf("pair %zu %zu (lengths %zu, %zu): device %a host %a\n", i, j, seqs[i].size(), seqs[j].size(),
                      device(i, j), host(i, j));
        }
      }
    }
  }
  INFO(seqs.size() << " sequences, " << gpu.device_pairs() << " pairs on the device, " << gpu.host_pairs()
                   << " on the host");
  REQUIRE(differ == 0);
}

}  // namespace

TEST_CASE("device clustal distances: a few short pairs [small]", "[msa][small]") {
  std::mt19937 rng(1);
  require_same(families(rng, 5, 1, 40, false), FullPairwiseSettings::protein());
  require_same(families(rng, 4, 1, 30, true), FullPairwiseSettings::nucleotide());
  require_same({clustal_encode("A"), clustal_encode("A")}, FullPairwiseSettings::protein());
  // Long sequences past max_length on the host, the others on the device, launches of one warp each.
  DeviceClustalLimits limits;
  limits.max_length = 25;
  limits.scratch_bytes = 16 * 32 * 41;
  require_same(families(rng, 6, 10, 40, false), FullPairwiseSettings::protein(), limits);
  // Every strip height, lengths 1..40 leaving every remainder of rows.
  for (const int strip : {1, 2, 4, 8}) {  // and the default, 16, above
    DeviceClustalLimits strips;
    strips.strip_rows = strip;
    require_same(families(rng, 8, 1, 40, false), FullPairwiseSettings::protein(), strips);
    require_same(families(rng, 6, 1, 40, true), FullPairwiseSettings::nucleotide(), strips);
  }
}

TEST_CASE("device clustal distances: protein and DNA families, N = 2 .. 300", "[msa]") {
  std::mt19937 rng(2);
  for (const int n : {2, 3, 17, 33, 100, 300}) {
    require_same(families(rng, n, 50, 400, false), FullPairwiseSettings::protein());
    require_same(families(rng, n, 50, 400, true), FullPairwiseSettings::nucleotide());
  }
  require_same(families(rng, 40, 1, 10, false, 0.5), FullPairwiseSettings::protein());
  require_same(families(rng, 20, 1000, 3000, false), FullPairwiseSettings::protein());
  require_same(families(rng, 12, 2000, 4000, true), FullPairwiseSettings::nucleotide());
  // Unrelated sequences: short local alignments, boxes far from the corners.
  require_same(families(rng, 60, 100, 600, false, 0.95), FullPairwiseSettings::protein());
}

TEST_CASE("device clustal distances: the other tables and gap costs", "[msa]") {
  std::mt19937 rng(3);
  const Sequences protein = families(rng, 40, 30, 300, false);
  const Sequences dna = families(rng, 40, 30, 300, true);
  for (const auto matrix :
       {PairwiseProteinMatrix::blosum, PairwiseProteinMatrix::pam, PairwiseProteinMatrix::identity}) {
    FullPairwiseSettings s = FullPairwiseSettings::protein();
    s.protein_matrix = matrix;
    require_same(protein, s);
  }
  FullPairwiseSettings cheap = FullPairwiseSettings::protein();
  cheap.gap_open = 0.5f;
  cheap.gap_extend = 0.0f;
  require_same(protein, cheap);
  FullPairwiseSettings clustal_dna = FullPairwiseSettings::nucleotide();
  clustal_dna.dna_matrix = PairwiseDnaMatrix::clustalw;
  clustal_dna.transition_weight = 1.0f;
  require_same(dna, clustal_dna);
  FullPairwiseSettings dear = FullPairwiseSettings::nucleotide();
  dear.gap_open = 100.0f;
  dear.gap_extend = 0.0f;
  require_same(dna, dear);
}

TEST_CASE("device clustal distances: adversarial sets", "[msa]") {
  std::mt19937 rng(4);
  SECTION("identical sequences") {
    const std::string s = random_text(rng, protein_letters, 250);
    require_same(Sequences(50, clustal_encode(s)), FullPairwiseSettings::protein());
  }
  SECTION("all X, all N, and gaps only") {
    Sequences seqs;
    for (int k = 1; k < 40; k += 3) seqs.push_back(clustal_encode(std::string(static_cast<std::size_t>(k), 'X')));
    for (int k = 1; k < 40; k += 5) seqs.push_back(clustal_encode(std::string(static_cast<std::size_t>(k * 7), 'N')));
    seqs.push_back(clustal_encode("----"));
    seqs.push_back({});
    seqs.push_back(clustal_encode("X-X-X"));
    require_same(seqs, FullPairwiseSettings::protein());
    require_same(seqs, FullPairwiseSettings::nucleotide());
  }
  SECTION("low-complexity repeats: many equal paths") {
    Sequences seqs;
    for (const char* unit : {"A", "AG", "GA", "AAG", "QQQE", "ACGT", "PGPG"}) {
      for (const int copies : {1, 5, 33, 120}) {
        std::string s;
        for (int c = 0; c < copies; ++c) s += unit;
        seqs.push_back(clustal_encode(s));
        seqs.push_back(clustal_encode(mutated(rng, s, "AGQE", 0.1)));
      }
    }
    require_same(seqs, FullPairwiseSettings::protein());
    require_same(seqs, FullPairwiseSettings::nucleotide());
  }
  SECTION("one very long sequence among short ones, on the device and on the host") {
    Sequences seqs = families(rng, 60, 1, 120, false);
    const std::string long_one = random_text(rng, protein_letters, 5000);
    seqs.insert(seqs.begin() + 17, clustal_encode(long_one));
    seqs.push_back(clustal_encode(mutated(rng, long_one.substr(1000, 3000), protein_letters, 0.2)));
    require_same(seqs, FullPairwiseSettings::protein());
    DeviceClustalLimits limits;
    limits.max_length = 1000;
    require_same(seqs, FullPairwiseSettings::protein(), limits);
  }
  SECTION("a sequence of 70,000 residues on the device: sort keys past 32 bits, shifted") {
    const std::string long_one = random_text(rng, protein_letters, 70000);
    Sequences seqs{clustal_encode(long_one)};
    for (const std::size_t at : {0, 123, 40000, 69800}) {
      seqs.push_back(clustal_encode(mutated(rng, long_one.substr(at, 200), protein_letters, 0.2)));
    }
    seqs.push_back(clustal_encode(random_text(rng, protein_letters, 90)));
    DeviceClustalLimits limits;
    limits.max_length = 70000;
    require_same(seqs, FullPairwiseSettings::protein(), limits);
  }
  SECTION("every sequence past max_length: all on the host") {
    DeviceClustalLimits limits;
    limits.max_length = 1;
    require_same(families(rng, 10, 5, 50, false), FullPairwiseSettings::protein(), limits);
  }
  SECTION("a scratch budget of one warp: many launches") {
    DeviceClustalLimits limits;
    limits.max_length = 300;
    limits.scratch_bytes = 16 * 32 * 301;
    require_same(families(rng, 30, 20, 250, false), FullPairwiseSettings::protein(), limits);
  }
  SECTION("a budget too small for one warp is refused") {
    DeviceClustalLimits limits;
    limits.scratch_bytes = 1000;
    DeviceClustalDistances gpu(families(rng, 3, 20, 30, false), limits);
    REQUIRE_THROWS_AS(gpu.distances(FullPairwiseSettings::protein()), std::runtime_error);
  }
  SECTION("strip heights other than 1, 2, 4, 8, 16 are refused") {
    DeviceClustalLimits limits;
    limits.strip_rows = 3;
    REQUIRE_THROWS_AS(DeviceClustalDistances(families(rng, 3, 20, 30, false), limits), std::invalid_argument);
  }
  SECTION("the progress counter reaches every pair, the host's long ones included") {
    DeviceClustalLimits limits;
    limits.max_length = 100;
    const Sequences seqs = families(rng, 40, 20, 200, false);
    std::atomic<std::size_t> done{0};
    DeviceClustalDistances gpu(seqs, limits);
    gpu.distances(FullPairwiseSettings::protein(), &done);
    REQUIRE(gpu.host_pairs() > 0);
    REQUIRE(done.load() == seqs.size() * (seqs.size() - 1) / 2);
  }
  SECTION("codes outside the table are refused") {
    REQUIRE_THROWS_AS(DeviceClustalDistances(Sequences{{1, 2}, {40}}), std::invalid_argument);
  }
  SECTION("the front door: full distances on the device, k-tuple ones on the host") {
    const Sequences seqs = families(rng, 20, 30, 200, false);
    for (const bool quick : {false, true}) {
      const auto settings = PairwiseDistanceSettings::defaults(false, quick);
      const auto host = clustal_distances(seqs, settings);
      const auto device = device_clustal_distances(seqs, settings);
      for (std::size_t i = 0; i < seqs.size(); ++i) {
        for (std::size_t j = 0; j < seqs.size(); ++j) REQUIRE(device(i, j) == host(i, j));
      }
    }
  }
  SECTION("fewer than two sequences") {
    REQUIRE(DeviceClustalDistances(Sequences{}).distances(FullPairwiseSettings::protein()).size() == 0);
    REQUIRE(DeviceClustalDistances(Sequences{{1, 2}}).distances(FullPairwiseSettings::protein())(0, 0) == 0.0);
  }
}
