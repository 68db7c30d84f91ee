#include "cudp/bio/karlin_altschul.hpp"
#include "../support/test_data.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using cudp::bio::bit_score;
using cudp::bio::evalue;
using cudp::bio::gapped_parameters;
using cudp::bio::KarlinAltschul;
using cudp::bio::ungapped_parameters;

TEST_CASE("BLOSUM62 11/1, the BLAST default, has the familiar parameters", "[karlin_altschul]") {
  auto ka = gapped_parameters("BLOSUM62", 11, 1);
  REQUIRE(ka);
  CHECK(ka->lambda == Approx(0.267));
  CHECK(ka->K == Approx(0.041));
  CHECK(ka->H == Approx(0.14));
}

TEST_CASE("matrix names are case-insensitive; unknown names and gap costs are refused", "[karlin_altschul]") {
  CHECK(gapped_parameters("blosum62", 11, 1));
  CHECK(gapped_parameters("Pam250", 10 + 3, 2));
  CHECK_FALSE(gapped_parameters("BLOSUM63", 11, 1));
  CHECK_FALSE(gapped_parameters("BLOSUM6", 11, 1));
  CHECK_FALSE(gapped_parameters("", 11, 1));
  // Tabulated for other matrices but not for BLOSUM62.
  CHECK_FALSE(gapped_parameters("BLOSUM62", 10, 3));
  CHECK_FALSE(gapped_parameters("BLOSUM62", 0, 0));
}

TEST_CASE("every tabulated gap cost is present", "[karlin_altschul]") {
  struct Expect {
    const char* matrix;
    std::vector<std::pair<int, int>> costs;
  };
  const std::vector<Expect> all = {
      {"BLOSUM45",
       {{13, 3}, {12, 3}, {11, 3}, {10, 3}, {16, 2}, {15, 2}, {14, 2}, {13, 2}, {12, 2}, {19, 1}, {18, 1}, {17, 1},
        {16, 1}}},
      {"BLOSUM50",
       {{13, 3}, {12, 3}, {11, 3}, {10, 3}, {9, 3}, {16, 2}, {15, 2}, {14, 2}, {13, 2}, {12, 2}, {19, 1}, {18, 1},
        {17, 1}, {16, 1}, {15, 1}}},
      {"BLOSUM62", {{11, 2}, {10, 2}, {9, 2}, {8, 2}, {7, 2}, {6, 2}, {13, 1}, {12, 1}, {11, 1}, {10, 1}, {9, 1}}},
      {"BLOSUM80", {{25, 2}, {13, 2}, {9, 2}, {8, 2}, {7, 2}, {6, 2}, {11, 1}, {10, 1}, {9, 1}}},
      {"PAM250",
       {{15, 3}, {14, 3}, {13, 3}, {12, 3}, {11, 3}, {17, 2}, {16, 2}, {15, 2}, {14, 2}, {13, 2}, {21, 1}, {20, 1},
        {19, 1}, {18, 1}, {17, 1}}},
  };
  for (const auto& e : all) {
    auto ungapped = ungapped_parameters(e.matrix);
    REQUIRE(ungapped);
    for (auto [open, ext] : e.costs) {
      INFO(e.matrix << " " << open << "/" << ext);
      auto ka = gapped_parameters(e.matrix, open, ext);
      REQUIRE(ka);
      // Gaps only add ways to score, so the gapped score distribution has a heavier tail than the ungapped one.
      CHECK(ka->lambda < ungapped->lambda);
      CHECK(ka->K < ungapped->K);
      // H is not compared: BLOSUM80 25/2 is tabulated as 0.66, above the ungapped 0.6568, by rounding.
      CHECK(ka->H > 0.0);
    }
  }
}

TEST_CASE("dearer gaps move the gapped parameters towards the ungapped ones", "[karlin_altschul]") {
  // Within one extension cost lambda must rise monotonically with the opening cost.
  for (const char* m : {"BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "PAM250"}) {
    for (int ext = 1; ext <= 3; ++ext) {
      double last = 0.0;
      for (int open = 0; open <= 30; ++open) {
        auto ka = gapped_parameters(m, open, ext);
        if (!ka) continue;
        INFO(m << " " << open << "/" << ext);
        CHECK(ka->lambda > last);
        last = ka->lambda;
      }
    }
  }
}

TEST_CASE("bit score on a hand-computed example", "[karlin_altschul]") {
  auto ka = *gapped_parameters("BLOSUM62", 11, 1);
  // (0.267 * 100 - ln 0.041) / ln 2 = (26.7 + 3.194183) / 0.693147 = 43.128; BLAST prints "43.1 bits (100)".
  CHECK(bit_score(100, ka) == Approx(43.1277).margin(1e-3));
  // Zero raw score still has a positive bit score because K < 1.
  CHECK(bit_score(0, ka) == Approx(-std::log(0.041) / std::log(2.0)));
  // Each raw point is worth lambda / ln 2 bits.
  CHECK(bit_score(201, ka) - bit_score(200, ka) == Approx(0.267 / std::log(2.0)));
}

TEST_CASE("E-value scales linearly with database size and query length", "[karlin_altschul]") {
  auto ka = *gapped_parameters("BLOSUM62", 11, 1);
  const double e1 = evalue(60, 300, 1'000'000, ka);
  CHECK(evalue(60, 300, 2'000'000, ka) == Approx(2.0 * e1));
  CHECK(evalue(60, 300, 200'000'000, ka) == Approx(200.0 * e1));
  CHECK(evalue(60, 600, 1'000'000, ka) == Approx(2.0 * e1));
  // Hand value: 0.041 * 300 * 1e6 * exp(-0.267 * 60) = 1.23e7 * 1.10307e-7.
  CHECK(e1 == Approx(0.041 * 300.0 * 1e6 * std::exp(-16.02)));
  CHECK(e1 == Approx(1.35678).epsilon(1e-4));
  // E = m n 2^-bits ties the two normalisations together.
  CHECK(e1 == Approx(300.0 * 1e6 * std::pow(2.0, -bit_score(60, ka))));
  // Full Swiss-Prot-sized search: residues beyond 2^32 must not wrap.
  CHECK(evalue(60, 300, 8'000'000'000ULL, ka) == Approx(8000.0 * e1));
}

namespace {

// Robinson & Robinson (PNAS 88:8880, 1991) amino-acid frequencies per 1000, the background BLAST uses.
const std::map<char, double> robinson = {
    {'A', 78.05}, {'C', 19.25}, {'D', 53.64}, {'E', 62.95}, {'F', 38.56}, {'G', 73.77}, {'H', 21.99},
    {'I', 51.42}, {'K', 57.44}, {'L', 90.19}, {'M', 22.43}, {'N', 44.87}, {'P', 52.03}, {'Q', 42.64},
    {'R', 51.29}, {'S', 71.20}, {'T', 58.41}, {'V', 64.41}, {'W', 13.30}, {'Y', 32.16}};

bool read_ncbi_matrix(const std::string& path, std::map<std::pair<char, char>, int>& out) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  std::vector<char> cols;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    if (cols.empty()) {
      std::string c;
      while (ss >> c) cols.push_back(c[0]);
      continue;
    }
    std::string row;
    ss >> row;
    for (char c : cols) {
      int v;
      ss >> v;
      out[{row[0], c}] = v;
    }
  }
  return !out.empty();
}

}  // namespace

TEST_CASE("ungapped lambda and H recomputed from the NCBI matrix files", "[karlin_altschul][ncbi-data]") {
  // Independent check of the table: lambda solves sum p_i p_j exp(lambda s_ij) = 1, and
  // H = lambda * sum p_i p_j s_ij exp(lambda s_ij), from the ncbi-data package's matrix files.
  for (const char* name : {"BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "PAM250"}) {
    std::map<std::pair<char, char>, int> s;
    INFO(name);
    REQUIRE(read_ncbi_matrix(cudp::test::ncbi_data_file(name), s));
    auto f = [&](double l) {
      double sum = 0.0;
      for (auto [a, pa] : robinson)
        for (auto [b, pb] : robinson) sum += pa * pb * 1e-6 * std::exp(l * s.at({a, b}));
      return sum - 1.0;
    };
    double lo = 1e-3, hi = 2.0;
    for (int i = 0; i < 100; ++i) {
      const double mid = 0.5 * (lo + hi);
      (f(mid) > 0 ? hi : lo) = mid;
    }
    double H = 0.0;
    for (auto [a, pa] : robinson)
      for (auto [b, pb] : robinson) {
        const int v = s.at({a, b});
        H += pa * pb * 1e-6 * lo * v * std::exp(lo * v);
      }
    auto ka = *ungapped_parameters(name);
    INFO(name);
    CHECK(lo == Approx(ka.lambda).margin(1e-4));
    CHECK(H == Approx(ka.H).margin(1e-4));
  }
}
