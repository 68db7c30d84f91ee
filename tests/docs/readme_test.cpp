// The README's "Using the library" code (examples/search_database/search.hpp), compiled and run. Scores are
// compared with local alignment scores worked out by hand from BLOSUM62 and with a textbook Smith-Waterman-Gotoh
// matrix written here, not with the library's output.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <cudp/bio/alphabet.hpp>
#include <cudp/engine/host_scorer.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/recurrences/gotoh.hpp>
#include <cudp/scorer.hpp>

#include "../../examples/search_database/search.hpp"

namespace {

// Smith-Waterman with affine gaps (Gotoh), full matrices: a gap of length k costs open + k * extend.
int textbook_local(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b,
                   const cudp::io::SubstitutionMatrix& matrix, int open, int extend) {
  const int none = -1000000;
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> h(n + 1, std::vector<int>(m + 1, 0)), e = h, f = h;
  int best = 0;
  for (std::size_t i = 0; i <= n; ++i)
    for (std::size_t j = 0; j <= m; ++j) e[i][j] = f[i][j] = none;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      e[i][j] = std::max(e[i][j - 1] - extend, h[i][j - 1] - open - extend);
      f[i][j] = std::max(f[i - 1][j] - extend, h[i - 1][j] - open - extend);
      h[i][j] = std::max({0, h[i - 1][j - 1] + matrix(a[i - 1], b[j - 1]), e[i][j], f[i][j]});
      best = std::max(best, h[i][j]);
    }
  return best;
}

std::vector<std::uint8_t> protein(const std::string& s) {
  std::vector<std::uint8_t> codes;
  for (char c : s) codes.push_back(static_cast<std::uint8_t>(cudp::bio::protein().encode(c)));
  return codes;
}

}  // namespace

TEST_CASE("readme: the host search gives hand-computed BLOSUM62 scores") {
  const auto matrix = cudp::io::load_matrix("BLOSUM62", cudp::bio::protein());
  const auto query = protein("HEAGAWGHEE");
  const std::vector<std::string> targets = {
      "HEAGAWGHEE",  // itself: the diagonal H E A G A W G H E E = 8+5+4+6+4+11+6+8+5+5 = 62
      "AGAW",        // inside the query: A G A W = 4+6+4+11 = 25, also the most each residue can score
      "PPPP",        // P scores -1 or less against every query residue: nothing positive, 0
      "WW",          // the query's one W: 11 (W/W), and no second W to pair with
  };
  std::vector<std::uint8_t> residues;
  std::vector<std::uint64_t> offsets{0};
  for (const auto& t : targets) {
    const auto codes = protein(t);
    residues.insert(residues.end(), codes.begin(), codes.end());
    offsets.push_back(residues.size());
  }
  const cudp::engine::SequencesView db{residues.data(), offsets.data(), targets.size()};
  const auto scores = search(matrix, query.data(), static_cast<int>(query.size()), db);
  CHECK(scores == std::vector<std::int32_t>{62, 25, 0, 11});
  for (std::size_t t = 0; t < targets.size(); ++t) CHECK(scores[t] == textbook_local(protein(targets[t]), query, matrix, 11, 1));
}

TEST_CASE("readme: the host search equals a textbook Smith-Waterman-Gotoh on random proteins") {
  const auto matrix = cudp::io::load_matrix("BLOSUM62", cudp::bio::protein());
  std::mt19937 rng(7);
  auto random_protein = [&](int n) {
    std::vector<std::uint8_t> s(static_cast<std::size_t>(n));
    for (auto& c : s) c = static_cast<std::uint8_t>(rng() % 20);
    return s;
  };
  const auto query = random_protein(70);
  std::vector<std::vector<std::uint8_t>> targets;
  std::vector<std::uint8_t> residues;
  std::vector<std::uint64_t> offsets{0};
  for (int n : {1, 5, 31, 32, 33, 64, 150, 400}) {
    auto t = random_protein(n);
    // Plant a piece of the query, so that some scores come from long alignments with gaps.
    if (n >= 64) std::copy(query.begin() + 10, query.begin() + 40, t.begin() + 20);
    if (n >= 150) t.erase(t.begin() + 30);
    targets.push_back(t);
    residues.insert(residues.end(), t.begin(), t.end());
    offsets.push_back(residues.size());
  }
  const cudp::engine::SequencesView db{residues.data(), offsets.data(), targets.size()};
  const auto scores = search(matrix, query.data(), static_cast<int>(query.size()), db);
  REQUIRE(scores.size() == targets.size());
  for (std::size_t t = 0; t < targets.size(); ++t) {
    INFO("target " << t << " of length " << targets[t].size());
    CHECK(scores[t] == textbook_local(targets[t], query, matrix, 11, 1));
  }
}
