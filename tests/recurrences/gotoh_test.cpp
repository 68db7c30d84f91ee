// The pairwise policies on the host tier, in every lane, against the textbook implementations.
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

TEMPLATE_TEST_CASE("Gotoh local matches the textbook reference", "[gotoh]", lanes::s32, lanes::s16x2, lanes::s8x4,
                   lanes::h16x2) {
  check_gotoh<Local, TestType>(test::Mode::Local, 11, 1, -4, 11, 1);
  check_gotoh<Local, TestType>(test::Mode::Local, 0, 2, -3, 5, 2);  // linear gaps
  check_gotoh<Local, TestType>(test::Mode::Local, 5, 2, -6, 9, 3);
}

TEMPLATE_TEST_CASE("Gotoh global matches the textbook reference", "[gotoh]", lanes::s32, lanes::s16x2, lanes::s8x4,
                   lanes::h16x2) {
  check_gotoh<Global, TestType>(test::Mode::Global, 11, 1, -4, 11, 4);
  check_gotoh<Global, TestType>(test::Mode::Global, 0, 1, -2, 3, 5);
}

TEMPLATE_TEST_CASE("Gotoh semi-global matches the textbook reference", "[gotoh]", lanes::s32, lanes::s16x2, lanes::s8x4,
                   lanes::h16x2) {
  check_gotoh<Semi, TestType>(test::Mode::SemiGlobal, 10, 1, -4, 11, 6);
  check_gotoh<Semi, TestType>(test::Mode::SemiGlobal, 3, 3, -5, 5, 7);
}

// Scores of 20 per match on a 4-letter alphabet: the query against prefixes of itself scores 20 per residue, past
// a narrow lane's range from some length on; one random target of `random_length` stays low (about 4 per residue).
// Every score must equal the reference, and exactly the prefixes past the lane's overflow limit are rescored.
template <class Narrow>
std::vector<int> check_rescoring(std::size_t query_length, const std::vector<std::size_t>& prefixes,
                                 std::size_t random_length, std::uint64_t rescored, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  test::RandomMatrix matrix(4, -1, 1, 3);
  matrix.s = {20, -1, -1, -1, -1, 20, -1, -1, -1, -1, 20, -1, -1, -1, -1, 20};
  auto query = test::random_codes(rng, query_length, 4);
  test::CodesSet db;
  for (std::size_t n : prefixes) db.add(std::vector<std::uint8_t>(query.begin(), query.begin() + n));
  db.add(test::random_codes(rng, random_length, 4));
  engine::CascadeStats stats;
  auto scores = engine::score_on_host<Local, Narrow>({11, 1}, matrix, 4, query.data(), static_cast<int>(query_length),
                                                      engine::view_of(db), 2, &stats);
  for (std::size_t t = 0; t < db.size(); ++t)
    REQUIRE(scores[t] == test::reference_gotoh(test::Mode::Local, db.get(t), query, matrix, 11, 1));
  REQUIRE(stats.rescored_overflow == rescored);
  return scores;
}

TEST_CASE("s16x2 local scores that overflow 16 bits are rescored exactly", "[gotoh][overflow]") {
  // 60000 overflows, 34000 just does, 30000 fits.
  const auto scores = check_rescoring<lanes::s16x2>(3000, {3000, 1700, 1500}, 500, 2, 11);
  REQUIRE(scores[0] == 60000);
}

TEST_CASE("h16x2 local scores past the exact range of half precision are rescored exactly", "[gotoh][overflow]") {
  // 34000, far past where half precision rounds, and 2060, just past 2048 - 20, are rescored; 2020 is exact.
  const auto scores = check_rescoring<lanes::h16x2>(1700, {1700, 103, 101}, 100, 2, 12);
  REQUIRE(scores[0] == 34000);
  REQUIRE(scores[2] == 2020);
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
