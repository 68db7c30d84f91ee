// The host backend in vector lanes, in every instruction set this CPU has, against the textbook DP: Gotoh in its
// three modes and Levenshtein, with the 8 -> 16 -> 32-bit cascade made to take every step in every mode; the kernels
// found through the registry that src/host_vector.cpp fills the way any program does
// (engine/host_vector_kernels-inl.hpp).
#include <catch2/catch.hpp>

#include <hwy/targets.h>

#include <cudp/engine/host_vector.hpp>
#include <cudp/recurrences/gotoh.hpp>
#include <cudp/recurrences/levenshtein.hpp>

#include "../support/instruction_sets.hpp"
#include "../support/reference_dp.hpp"

using namespace cudp;
using recurrences::AlignMode;

template <class L> using Local = recurrences::Gotoh<AlignMode::Local, L>;
template <class L> using Global = recurrences::Gotoh<AlignMode::Global, L>;
template <class L> using Semi = recurrences::Gotoh<AlignMode::SemiGlobal, L>;
template <class L> using Edit = recurrences::Levenshtein<L>;
// Levenshtein under a type of its own, for which no unit of this program compiles kernels.
template <class L> struct Unregistered : recurrences::Levenshtein<L> {
  using recurrences::Levenshtein<L>::Levenshtein;
};

namespace {

// Lengths around every vector width (16 to 64 lanes, bands of 4 rows), mutated copies of the query (scores past
// 8 bits), and random targets.
test::CodesSet test_db(std::mt19937_64& rng, const std::vector<std::uint8_t>& query, int alphabet, std::size_t count) {
  test::CodesSet db;
  for (std::size_t len : {1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 300})
    db.add(test::random_codes(rng, len, alphabet));
  for (std::size_t len : {query.size(), query.size() / 2 + 1, query.size() + 9})
    db.add(test::mutated_copy(rng, query, len, alphabet));
  std::uniform_int_distribution<std::size_t> len(1, 420);
  while (db.size() < count) db.add(test::random_codes(rng, len(rng), alphabet));
  return db;
}

template <template <class> class Policy, class Matrix, class Expect>
engine::CascadeStats check(const typename Policy<lanes::s32>::Params& params, const Matrix& matrix, int alphabet,
                           const std::vector<std::uint8_t>& query, const test::CodesSet& db, Expect expect) {
  engine::CascadeStats stats;
  const auto scores = engine::host_vector::score<Policy>(params, matrix, alphabet, query.data(),
                                                         static_cast<int>(query.size()), engine::view_of(db), 2, &stats);
  REQUIRE(scores.size() == db.size());
  for (std::size_t t = 0; t < db.size(); ++t) {
    INFO("query length " << query.size() << ", target " << t << " of length " << db.get(t).size());
    REQUIRE(scores[t] == expect(db.get(t)));
  }
  REQUIRE(stats.narrow_targets + stats.wide_only == db.size());
  return stats;
}

template <template <class> class Policy>
void check_gotoh(test::Mode mode, int open, int extend, int lo, int hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int alphabet = 24;  // past 16 codes: two byte tables per class, the pad code in the second
  test::RandomMatrix matrix(alphabet, lo, hi, seed);
  for (std::size_t qlen : {1, 3, 17, 64, 150, 700}) {
    const auto query = test::random_codes(rng, qlen, alphabet);
    const test::CodesSet db = test_db(rng, query, alphabet, 90);
    test::in_every_instruction_set([&](bool scalar) {
      const auto stats = check<Policy>({open, extend}, matrix, alphabet, query, db, [&](const std::vector<std::uint8_t>& t) {
        return test::reference_gotoh(mode, t, query, matrix, open, extend);
      });
      if (scalar) REQUIRE(stats.wide_only == db.size());
      // Local scores always start in 8 bits; global and semi-global ones only where no score can leave them.
      if (!scalar && mode == test::Mode::Local) REQUIRE(stats.narrow_targets == db.size());
      if (!scalar && mode == test::Mode::Local && qlen >= 150) REQUIRE(stats.rescored_overflow > 0);
    });
  }
}

}  // namespace

TEST_CASE("Vector-lane local Gotoh matches the textbook reference", "[host_vector][gotoh]") {
  check_gotoh<Local>(test::Mode::Local, 11, 1, -4, 11, 1);
  check_gotoh<Local>(test::Mode::Local, 0, 2, -3, 5, 2);  // linear gaps
  check_gotoh<Local>(test::Mode::Local, 5, 2, -6, 9, 3);
}

TEST_CASE("Vector-lane global Gotoh matches the textbook reference", "[host_vector][gotoh]") {
  check_gotoh<Global>(test::Mode::Global, 11, 1, -4, 11, 4);
  check_gotoh<Global>(test::Mode::Global, 0, 1, -2, 3, 5);
}

TEST_CASE("Vector-lane semi-global Gotoh matches the textbook reference", "[host_vector][gotoh]") {
  check_gotoh<Semi>(test::Mode::SemiGlobal, 10, 1, -4, 11, 6);
  check_gotoh<Semi>(test::Mode::SemiGlobal, 3, 3, -5, 5, 7);
}

TEST_CASE("Vector-lane Levenshtein matches the textbook distance, short pairs in 8 bits", "[host_vector][levenshtein]") {
  std::mt19937_64 rng(21);
  for (std::size_t qlen : {1, 7, 64, 90, 300}) {
    const auto query = test::random_codes(rng, qlen, 4);
    const test::CodesSet db = test_db(rng, query, 4, 60);
    test::in_every_instruction_set([&](bool scalar) {
      const auto stats = check<Edit>({}, 0, 4, query, db, [&](const std::vector<std::uint8_t>& t) {
        return test::reference_levenshtein(t, query);
      });
      if (!scalar && qlen <= 64) REQUIRE(stats.narrow_targets > 0);
    });
  }
}

namespace {

// Every step of the cascade in one mode: two queries against targets whose exact scores lie in 8 bits, past them
// in 16, and past 16 bits (above 32767, and in global mode below the 16-bit lanes' minus infinity). What each step
// handed on is checked against the textbook scores, not against `fits` or `overflowed`: a policy that let a score
// through a lane too narrow for it fails here twice, in the score and in the counts.
template <template <class> class Policy>
void check_every_step(test::Mode mode) {
  std::mt19937_64 rng(31);
  test::RandomMatrix matrix(4, -1, 1, 3);
  matrix.s = {20, -5, -5, -5, -5, 20, -5, -5, -5, -5, 20, -5, -5, -5, -5, 20};
  const recurrences::GapCosts gaps{10, 3};
  // Codes 1 to 3 only, so that a run of code 0 mismatches it everywhere.
  auto query = test::random_codes(rng, 1800, 3);
  for (auto& c : query) ++c;
  const std::vector<std::uint8_t> short_query(query.begin(), query.begin() + 3);
  test::CodesSet db;
  // Prefixes of the query score 20 a residue (less the query's end gap in global mode): 1800 and 1700 residues
  // pass 16 bits, 1500 stay in them. 7000 residues of code 0 score below -16384 against either query in global
  // mode. Targets of 1 to 3 residues against the short query fit 8 bits.
  for (std::size_t n : {1800, 1700, 1500, 3, 2, 1})
    db.add(std::vector<std::uint8_t>(query.begin(), query.begin() + static_cast<long>(n)));
  db.add(std::vector<std::uint8_t>(7000, 0));
  for (std::size_t n : {1, 2, 3, 40, 400}) db.add(test::random_codes(rng, n, 4));

  // Where each lane width is exact: from its minus infinity to its maximum.
  auto in_8_bits = [](long score) { return score >= -64 && score <= 127; };
  auto in_16_bits = [](long score) { return score >= -16384 && score <= 32767; };
  const std::vector<std::uint8_t>* queries[] = {&short_query, &query};
  std::vector<long> expected[2];
  std::uint64_t past_8 = 0, only_16 = 0, past_16 = 0;
  for (int q = 0; q < 2; ++q)
    for (std::size_t t = 0; t < db.size(); ++t) {
      const long score = test::reference_gotoh(mode, db.get(t), *queries[q], matrix, gaps.open, gaps.extend);
      expected[q].push_back(score);
      past_8 += !in_8_bits(score);
      only_16 += !in_8_bits(score) && in_16_bits(score);
      past_16 += !in_16_bits(score);
    }
  REQUIRE(past_16 >= (mode == test::Mode::Global ? 4u : 2u));
  REQUIRE(only_16 > 0);
  REQUIRE(past_8 < 2 * db.size());

  test::in_every_instruction_set([&](bool scalar) {
    engine::CascadeStats stats;
    for (int q = 0; q < 2; ++q) {
      std::size_t t = 0;
      stats += check<Policy>(gaps, matrix, 4, *queries[q], db,
                             [&](const std::vector<std::uint8_t>&) { return expected[q][t++]; });
    }
    const auto& second = stats.second_step;
    INFO("8 bits: " << stats.narrow_targets << " ran, " << stats.rescored_overflow << " rescored, " << stats.wide_only
                    << " handed on unrun; 16 bits: " << second.narrow_targets << " ran, " << second.rescored_overflow
                    << " rescored, " << second.wide_only << " handed on unrun");
    if (scalar) {
      REQUIRE(stats.wide_only == 2 * db.size());
      REQUIRE(second.narrow_targets + second.rescored_overflow + second.wide_only == 0);
      return;
    }
    // Every step taken, and every score past a lane's range handed on from it.
    REQUIRE(stats.narrow_targets > 0);
    REQUIRE(stats.rescored_overflow + stats.wide_only >= past_8);
    REQUIRE(second.narrow_targets + second.wide_only == stats.rescored_overflow + stats.wide_only);
    REQUIRE(second.narrow_targets > 0);
    REQUIRE(second.rescored_overflow + second.wide_only >= past_16);
  });
}

}  // namespace

TEST_CASE("Vector-lane local scores past 8 and 16 bits are rescored exactly", "[host_vector][overflow]") {
  check_every_step<Local>(test::Mode::Local);
}

TEST_CASE("Vector-lane global scores past 8 and 16 bits reach 32 bits", "[host_vector][overflow]") {
  check_every_step<Global>(test::Mode::Global);
}

TEST_CASE("Vector-lane semi-global scores past 8 and 16 bits reach 32 bits", "[host_vector][overflow]") {
  check_every_step<Semi>(test::Mode::SemiGlobal);
}

TEST_CASE("Queries whose scores do not fit a byte, or with more than 255 codes, keep the 32-bit tier",
          "[host_vector][fallback]") {
  std::mt19937_64 rng(41);
  test::RandomMatrix matrix(20, -4, 11, 9);
  matrix.s[0] = 200;
  const auto query = test::random_codes(rng, 80, 20);
  const test::CodesSet db = test_db(rng, query, 20, 40);
  const auto stats = check<Local>({11, 1}, matrix, 20, query, db, [&](const std::vector<std::uint8_t>& t) {
    return test::reference_gotoh(test::Mode::Local, t, query, matrix, 11, 1);
  });
  REQUIRE(stats.wide_only == db.size());
}

TEST_CASE("Alphabets past 32 codes look up three byte tables per class", "[host_vector][gotoh]") {
  std::mt19937_64 rng(51);
  const int alphabet = 40;
  test::RandomMatrix matrix(alphabet, -5, 9, 10);
  const auto query = test::random_codes(rng, 120, alphabet);
  const test::CodesSet db = test_db(rng, query, alphabet, 70);
  test::in_every_instruction_set([&](bool) {
    check<Semi>({7, 2}, matrix, alphabet, query, db, [&](const std::vector<std::uint8_t>& t) {
      return test::reference_gotoh(test::Mode::SemiGlobal, t, query, matrix, 7, 2);
    });
    check<Local>({7, 2}, matrix, alphabet, query, db, [&](const std::vector<std::uint8_t>& t) {
      return test::reference_gotoh(test::Mode::Local, t, query, matrix, 7, 2);
    });
  });
}

TEST_CASE("The library's policies find their kernels by type; a policy without any keeps the 32-bit tier",
          "[host_vector][registry]") {
  CHECK(engine::host_vector::kernels_of<Local>() != nullptr);
  CHECK(engine::host_vector::kernels_of<Global>() != nullptr);
  CHECK(engine::host_vector::kernels_of<Semi>() != nullptr);
  CHECK(engine::host_vector::kernels_of<Edit>() != nullptr);
  CHECK(engine::host_vector::kernels_of<Local>() != engine::host_vector::kernels_of<Global>());
  CHECK(engine::host_vector::kernels_of<Unregistered>() == nullptr);
  CHECK_FALSE(engine::host_vector::has_kernels<Unregistered>());
  std::mt19937_64 rng(61);
  const auto query = test::random_codes(rng, 40, 4);
  const test::CodesSet db = test_db(rng, query, 4, 50);
  test::in_every_instruction_set([&](bool scalar) {
    CHECK(engine::host_vector::has_kernels<Edit>() == !scalar);
    CHECK(std::string(engine::host_vector::kernels_of<Edit>()->target().name) == engine::host_vector::instruction_set());
    const auto stats = check<Unregistered>({}, 0, 4, query, db, [&](const std::vector<std::uint8_t>& t) {
      return test::reference_levenshtein(t, query);
    });
    CHECK(stats.wide_only == db.size());
    CHECK(stats.narrow_targets == 0);
  });
}
