// The pairwise policies on the host tier, in every lane, against the textbook full-matrix implementations.
#include <catch2/catch.hpp>

#include <cudp/engine/host_scorer.hpp>
#include <cudp/lanes.hpp>
#include <cudp/recurrences/gotoh.hpp>
#include <cudp/recurrences/levenshtein.hpp>

#include "../support/reference_dp.hpp"

using namespace cudp;
using recurrences::AlignMode;

template <class L> using Local = recurrences::Gotoh<AlignMode::Local, L>;
template <class L> using Global = recurrences::Gotoh<AlignMode::Global, L>;
template <class L> using Semi = recurrences::Gotoh<AlignMode::SemiGlobal, L>;
template <class L> using Edit = recurrences::Levenshtein<L>;

namespace {

// Random targets of awkward lengths: 1, around the tile width, a few hundred, and one long.
test::CodesSet random_db(std::mt19937_64& rng, int alphabet, std::size_t count) {
  test::CodesSet db;
  const std::size_t fixed[] = {1, 2, 31, 32, 33, 63, 64, 65, 100, 257};
  for (std::size_t len : fixed) db.add(test::random_codes(rng, len, alphabet));
  std::uniform_int_distribution<std::size_t> len(1, 400);
  while (db.size() < count) db.add(test::random_codes(rng, len(rng), alphabet));
  return db;
}

template <template <class> class Policy, class Narrow>
void check_gotoh(test::Mode mode, int open, int extend, int lo, int hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int alphabet = 24;
  test::RandomMatrix matrix(alphabet, lo, hi, seed);
  test::CodesSet db = random_db(rng, alphabet, 60);
  for (std::size_t qlen : {1, 5, 32, 33, 150, 700}) {
    auto query = test::random_codes(rng, qlen, alphabet);
    engine::CascadeStats stats;
    auto scores = engine::score_on_host<Policy, Narrow>({open, extend}, matrix, alphabet, query.data(),
                                                        static_cast<int>(qlen), engine::view_of(db), 2, &stats);
    for (std::size_t t = 0; t < db.size(); ++t) {
      long expect = test::reference_gotoh(mode, db.get(t), query, matrix, open, extend);
      INFO("query length " << qlen << " target " << t << " length " << db.get(t).size());
      REQUIRE(scores[t] == expect);
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("Gotoh local matches the full-matrix reference", "[gotoh]", lanes::s32, lanes::s16x2, lanes::s8x4,
                   lanes::h16x2) {
  check_gotoh<Local, TestType>(test::Mode::Local, 11, 1, -4, 11, 1);
  check_gotoh<Local, TestType>(test::Mode::Local, 0, 2, -3, 5, 2);  // linear gaps
  check_gotoh<Local, TestType>(test::Mode::Local, 5, 2, -6, 9, 3);
}

TEMPLATE_TEST_CASE("Gotoh global matches the full-matrix reference", "[gotoh]", lanes::s32, lanes::s16x2, lanes::s8x4,
                   lanes::h16x2) {
  check_gotoh<Global, TestType>(test::Mode::Global, 11, 1, -4, 11, 4);
  check_gotoh<Global, TestType>(test::Mode::Global, 0, 1, -2, 3, 5);
}

TEMPLATE_TEST_CASE("Gotoh semi-global matches the full-matrix reference", "[gotoh]", lanes::s32, lanes::s16x2, lanes::s8x4,
                   lanes::h16x2) {
  check_gotoh<Semi, TestType>(test::Mode::SemiGlobal, 10, 1, -4, 11, 6);
  check_gotoh<Semi, TestType>(test::Mode::SemiGlobal, 3, 3, -5, 5, 7);
}

TEST_CASE("s16x2 local scores that overflow 16 bits are rescored exactly", "[gotoh][overflow]") {
  // Identical long sequences with a large match score: the score passes 32767 long before the end.
  std::mt19937_64 rng(11);
  test::RandomMatrix matrix(4, -1, 1, 3);
  matrix.s = {20, -1, -1, -1, -1, 20, -1, -1, -1, -1, 20, -1, -1, -1, -1, 20};
  auto query = test::random_codes(rng, 3000, 4);
  test::CodesSet db;
  db.add(query);                                              // 60000: overflows
  db.add(test::random_codes(rng, 500, 4));                    // stays small
  db.add(std::vector<std::uint8_t>(query.begin(), query.begin() + 1700));  // 34000: just over
  db.add(std::vector<std::uint8_t>(query.begin(), query.begin() + 1500));  // 30000: fits
  engine::CascadeStats stats;
  auto scores = engine::score_on_host<Local, lanes::s16x2>({11, 1}, matrix, 4, query.data(), 3000, engine::view_of(db), 2, &stats);
  for (std::size_t t = 0; t < db.size(); ++t)
    REQUIRE(scores[t] == test::reference_gotoh(test::Mode::Local, db.get(t), query, matrix, 11, 1));
  REQUIRE(scores[0] == 60000);
  REQUIRE(stats.rescored_overflow == 2);
}

TEST_CASE("h16x2 local scores past the exact range of half precision are rescored exactly", "[gotoh][overflow]") {
  // Scores of 20 per match: 1700 identical residues reach 34000, where half precision has long been rounding.
  std::mt19937_64 rng(12);
  test::RandomMatrix matrix(4, -1, 1, 3);
  matrix.s = {20, -1, -1, -1, -1, 20, -1, -1, -1, -1, 20, -1, -1, -1, -1, 20};
  auto query = test::random_codes(rng, 1700, 4);
  test::CodesSet db;
  db.add(query);                                                            // 34000: rescored
  db.add(std::vector<std::uint8_t>(query.begin(), query.begin() + 103));   // 2060: just past 2048 - 20
  db.add(std::vector<std::uint8_t>(query.begin(), query.begin() + 101));   // 2020: exact in half precision
  db.add(test::random_codes(rng, 100, 4));  // about 4 per residue against a random query: stays small
  engine::CascadeStats stats;
  auto scores = engine::score_on_host<Local, lanes::h16x2>({11, 1}, matrix, 4, query.data(), 1700, engine::view_of(db), 2, &stats);
  for (std::size_t t = 0; t < db.size(); ++t)
    REQUIRE(scores[t] == test::reference_gotoh(test::Mode::Local, db.get(t), query, matrix, 11, 1));
  REQUIRE(scores[0] == 34000);
  REQUIRE(scores[2] == 2020);
  REQUIRE(stats.rescored_overflow == 2);
}

TEMPLATE_TEST_CASE("Levenshtein matches the textbook distance", "[levenshtein]", lanes::s32, lanes::s16x2, lanes::s8x4) {
  std::mt19937_64 rng(21);
  test::CodesSet db = random_db(rng, 4, 50);
  for (std::size_t qlen : {1, 7, 64, 90, 300}) {
    auto query = test::random_codes(rng, qlen, 4);
    auto scores = engine::score_on_host<Edit, TestType>({}, 0, 4, query.data(), static_cast<int>(qlen), engine::view_of(db), 2);
    for (std::size_t t = 0; t < db.size(); ++t) REQUIRE(scores[t] == test::reference_levenshtein(db.get(t), query));
  }
}
