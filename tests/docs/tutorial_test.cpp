// The code of docs/tutorial-recurrence.md, compiled and run. The regions between the snippet markers are shown
// verbatim in the tutorial (tests/docs/snippets_match.py checks it); the policy the tutorial writes step by step is
// include/cudp/recurrences/levenshtein.hpp itself, checked the same way. Every result is compared with the
// textbook edit-distance matrix below and with distances worked out by hand, never with the library's own output.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <random>
#include <string>

#include "../support/test_database.hpp"

// [snippet:tutorial-host]
#include <cstdint>
#include <vector>

#include <cudp/engine/host_scorer.hpp>
#include <cudp/lanes.hpp>
#include <cudp/recurrences/levenshtein.hpp>

using namespace cudp;

std::vector<std::int32_t> tutorial_distances() {
  // Targets as residue codes laid end to end (ACGT and ACCTG, codes A=0 C=1 G=2 T=3), and the query ACGT.
  std::vector<std::uint8_t> residues = {0, 1, 2, 3, 0, 1, 1, 3, 2};
  std::vector<std::uint64_t> offsets = {0, 4, 9};
  engine::SequencesView db{residues.data(), offsets.data(), 2};
  std::vector<std::uint8_t> query = {0, 1, 2, 3};

  // Params {}, no matrix (any placeholder), alphabet of 4 codes.
  return engine::score_on_host<recurrences::Levenshtein, lanes::s32>(
      {}, 0, 4, query.data(), static_cast<int>(query.size()), db);  // {0, 2}
}
// [/snippet]

namespace {

// D(i,0) = i, D(0,j) = j, D(i,j) = min(D(i-1,j-1) + [a_i != b_j], D(i-1,j) + 1, D(i,j-1) + 1): the full matrix.
int textbook_levenshtein(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j)
      d[i][j] = std::min({d[i - 1][j - 1] + (a[i - 1] != b[j - 1] ? 1 : 0), d[i - 1][j] + 1, d[i][j - 1] + 1});
  return d[a.size()][b.size()];
}

std::vector<std::uint8_t> dna(const std::string& s) {
  std::vector<std::uint8_t> codes;
  for (char c : s) codes.push_back(static_cast<std::uint8_t>(std::string("ACGT").find(c)));
  return codes;
}

using Database = test::TestDatabase;

template <class Narrow>
void check_lane(const Database& db, const std::vector<std::uint8_t>& query, std::uint64_t expect_wide_only) {
  engine::CascadeStats stats;
  auto d = engine::score_on_host<recurrences::Levenshtein, Narrow>({}, 0, 4, query.data(), static_cast<int>(query.size()),
                                                                 db.view(), 2, &stats);
  REQUIRE(d.size() == db.targets.size());
  for (std::size_t t = 0; t < d.size(); ++t) {
    INFO(Narrow::name << " target " << t << " of length " << db.targets[t].size());
    CHECK(d[t] == textbook_levenshtein(db.targets[t], query));
  }
  CHECK(stats.wide_only == expect_wide_only);
}

}  // namespace

TEST_CASE("tutorial: running it on the host gives the hand-computed distances") {
  // ACGT against itself is 0; ACCTG -> ACGT needs C->G and dropping the final G (no single edit does it): 2.
  std::vector<std::int32_t> d = tutorial_distances();
  CHECK(d == std::vector<std::int32_t>{0, 2});
  CHECK(d[0] == textbook_levenshtein(dna("ACGT"), dna("ACGT")));
  CHECK(d[1] == textbook_levenshtein(dna("ACCTG"), dna("ACGT")));
}

TEST_CASE("tutorial: hand-computed edit distances in every lane") {
  // Against the query AGTTACA; each distance is argued in its comment (a lower bound and an edit script).
  Database db;
  db.add(dna("A"));          // 6: keep the A, insert the other six
  db.add(dna("AGTTACA"));    // 0: identical
  db.add(dna("AGTACA"));     // 1: one T missing
  db.add(dna("CGTTACG"));    // 2: both ends substituted; no single edit fixes both
  db.add(dna("TTTTTTTTT"));  // 7: at most 2 of 9 residues can match (the query has two Ts), so >= 9 - 2; 2 deletions
                             //    and 5 substitutions reach it
  db.add(dna("ACATTGA"));    // 4: the query reversed; 4 substitutions in place, and a script with one insertion and
                             //    one deletion aligns 6 pairs, at most 4 equal (the longest common subsequence is
                             //    ATTA), so it costs 2 + 2 or more
  const auto query = dna("AGTTACA");
  const std::vector<int> by_hand = {6, 0, 1, 2, 7, 4};
  for (std::size_t t = 0; t < by_hand.size(); ++t) {
    INFO("target " << t);
    CHECK(textbook_levenshtein(db.targets[t], query) == by_hand[t]);
  }
  auto d = engine::score_on_host<recurrences::Levenshtein, lanes::s32>({}, 0, 4, query.data(),
                                                                       static_cast<int>(query.size()), db.view());
  CHECK(std::vector<int>(d.begin(), d.end()) == by_hand);
  check_lane<lanes::s16x2>(db, query, 0);
  check_lane<lanes::s8x4>(db, query, 0);
}

TEST_CASE("tutorial: choosing lanes, fits sends what a narrow lane cannot hold to s32") {
  // "s8x4 up to 125": a target (or query) of 126 residues or more is scored in s32, the rest in the narrow lane.
  std::mt19937 rng(20261123);
  Database db;
  const std::vector<int> lengths = {1, 2, 31, 32, 33, 64, 100, 124, 125, 126, 127, 200, 300};
  for (int n : lengths) {
    std::vector<std::uint8_t> t(static_cast<std::size_t>(n));
    for (auto& c : t) c = static_cast<std::uint8_t>(rng() % 4);
    db.add(t);
  }
  std::vector<std::uint8_t> query(90);
  for (auto& c : query) c = static_cast<std::uint8_t>(rng() % 4);
  check_lane<lanes::s32>(db, query, 0);
  check_lane<lanes::s16x2>(db, query, 0);
  check_lane<lanes::s8x4>(db, query, 4);  // 126, 127, 200, 300
}
