// The front door on the host: scores equal the textbook DP for every mode, a device request in a program without
// the device backend is a clear error, statistics and progress reach the caller, and the scorer says whether its
// policy runs in vector lanes.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "cudp/recurrences/gotoh.hpp"
#include "cudp/recurrences/levenshtein.hpp"
#include "cudp/scorer.hpp"
#include "support/reference_dp.hpp"

using namespace cudp;

namespace {
template <class L> using Local = recurrences::Gotoh<recurrences::AlignMode::Local, L>;
template <class L> using SemiGlobal = recurrences::Gotoh<recurrences::AlignMode::SemiGlobal, L>;
}  // namespace

TEST_CASE("DatabaseScorer on the host equals the textbook DP", "[scorer]") {
  std::mt19937_64 rng(81);
  const test::RandomMatrix matrix(20, -4, 9, 3);
  test::CodesSet db, queries;
  for (int k = 0; k < 40; ++k) db.add(test::random_codes(rng, 1 + rng() % 300, 20));
  for (int len : {1, 50, 333}) queries.add(test::random_codes(rng, len, 20));

  ScoreStats stats;
  std::vector<std::size_t> progress;
  ScoreConfig<recurrences::GapCosts> config;
  config.params = {10, 1};
  config.backend = Backend::Auto;  // no nvcc here: the host
  config.threads = 2;
  config.stats = &stats;
  config.progress = [&](std::size_t done, std::size_t total) {
    CHECK(total == queries.size());
    progress.push_back(done);
  };
  DatabaseScorer<Local> local(engine::view_of(db), matrix, matrix.size, config);
  CHECK(local.backend() == Backend::Host);
  const auto scores = local.score(engine::view_of(queries));
  REQUIRE(scores.size() == queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (std::size_t t = 0; t < db.size(); ++t)
      REQUIRE(scores[q][t] == test::reference_gotoh(test::Mode::Local, db.get(t), queries.get(q), matrix, 10, 1));
  CHECK(progress == std::vector<std::size_t>{1, 2, 3});
#if defined(CUDP_HAS_HOST_VECTOR)
  CHECK(local.uses_vector_lanes());
  CHECK(stats.narrow_bits == 8);
  CHECK(stats.where == std::string("host, 2 threads, ") + engine::host_vector::instruction_set() + " vectors");
  CHECK(stats.cascade.narrow_targets == db.size() * queries.size());  // every local score starts in 8-bit vectors
#else
  CHECK_FALSE(local.uses_vector_lanes());
  CHECK(stats.narrow_bits == 32);
  CHECK(stats.where == "host, 2 threads");
#endif
  std::uint64_t cells = 0;
  for (std::size_t q = 0; q < queries.size(); ++q)
    for (std::size_t t = 0; t < db.size(); ++t) cells += queries.get(q).size() * db.get(t).size();
  CHECK(stats.cascade.cells == cells);

  config.progress = nullptr;
  DatabaseScorer<SemiGlobal> semi(engine::view_of(db), matrix, matrix.size, config);
  const auto q = queries.get(1);
  const auto one = semi.score(q.data(), static_cast<int>(q.size()));
  for (std::size_t t = 0; t < db.size(); ++t)
    REQUIRE(one[t] == test::reference_gotoh(test::Mode::SemiGlobal, db.get(t), q, matrix, 10, 1));
}

TEST_CASE("DatabaseScorer refuses what it cannot do", "[scorer]") {
  test::CodesSet db;
  db.add({0, 1, 2});
  ScoreConfig<recurrences::LevenshteinParams> config;
  config.backend = Backend::Device;
  const auto equal = [](int a, int b) { return a == b ? 0 : 1; };
  // No translation unit of this test program is compiled by nvcc.
  CHECK_FALSE(device_backend_available());
  CHECK(device_count() == 0);
  CHECK_FALSE(start_device());
  CHECK_THROWS_WITH((DatabaseScorer<recurrences::Levenshtein>(engine::view_of(db), equal, 4, config)),
                    Catch::Contains("compiled by nvcc") && Catch::Contains("no device backend"));
  config.backend = Backend::Host;
  CHECK_THROWS_WITH((DatabaseScorer<recurrences::Levenshtein>(engine::view_of(db), equal, 0, config)),
                    Catch::Contains("alphabet size"));
  DatabaseScorer<recurrences::Levenshtein> edit(engine::view_of(db), equal, 4, config);
  const std::vector<std::uint8_t> q{0, 2};
  CHECK(edit.score(q.data(), 2) == std::vector<std::int32_t>{1});
}

namespace {
// Levenshtein under a type of its own, for which no unit of this program compiles vector kernels.
template <class L>
struct PlainEdit : recurrences::Levenshtein<L> {
  using recurrences::Levenshtein<L>::Levenshtein;
};
}  // namespace

TEST_CASE("DatabaseScorer says when a policy has no vector kernels and runs in the 32-bit host tier", "[scorer]") {
  std::mt19937_64 rng(83);
  test::CodesSet db;
  for (int k = 0; k < 30; ++k) db.add(test::random_codes(rng, 1 + rng() % 200, 4));
  const auto query = test::random_codes(rng, 60, 4);
  ScoreStats stats;
  ScoreConfig<recurrences::LevenshteinParams> config;
  config.threads = 2;
  config.stats = &stats;
  const auto equal = [](int a, int b) { return a == b ? 0 : 1; };
  DatabaseScorer<PlainEdit> plain(engine::view_of(db), equal, 4, config);
  CHECK_FALSE(plain.uses_vector_lanes());
  const auto scores = plain.score(query.data(), static_cast<int>(query.size()));
  for (std::size_t t = 0; t < db.size(); ++t) REQUIRE(scores[t] == test::reference_levenshtein(db.get(t), query));
  CHECK(stats.where == "host, 2 threads");
  CHECK(stats.narrow_bits == 32);
  CHECK(stats.cascade.wide_only == db.size());
  CHECK(stats.cascade.narrow_targets == 0);
  // The library's Levenshtein has kernels where cudp::host_vector is linked.
  DatabaseScorer<recurrences::Levenshtein> shipped(engine::view_of(db), equal, 4, config);
#if defined(CUDP_HAS_HOST_VECTOR)
  CHECK(shipped.uses_vector_lanes() == engine::host_vector::has_kernels<recurrences::Levenshtein>());
#else
  CHECK_FALSE(shipped.uses_vector_lanes());
#endif
}
