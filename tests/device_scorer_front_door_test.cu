// The front door on the GPU: Backend::Auto finds the device, and its scores equal the host backend's and the
// textbook DP's on every pair, resident and streamed, through the overflow cascade.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "cudp/recurrences/gotoh.hpp"
#include "cudp/scorer.hpp"
#include "support/reference_dp.hpp"

using namespace cudp;

namespace {
template <class L> using Local = recurrences::Gotoh<recurrences::AlignMode::Local, L>;
template <class L> using Global = recurrences::Gotoh<recurrences::AlignMode::Global, L>;

template <template <class> class Policy>
void check_device_equals_host(test::Mode mode) {
  std::mt19937_64 rng(91);
  const test::RandomMatrix matrix(20, -4, 9, 4);
  test::CodesSet db, queries;
  for (int k = 0; k < 500; ++k) db.add(test::random_codes(rng, 1 + rng() % 700, 20));
  for (int len : {1, 60, 400}) queries.add(test::random_codes(rng, len, 20));
  // A homopolymer of the best-scoring residue, as query and target: its self-hit passes 16 bits (local) and its
  // global problem is too wide for 16 bits, so the cascade must rescore it (the premise is checked below). The
  // underflowing pair's global score is below a 16-bit lane's minus infinity.
  const std::vector<std::uint8_t> repeat = test::overflowing_query(matrix, matrix.size);
  const test::UnderflowingPair underflow = test::underflowing_pair(matrix, matrix.size);
  db.add(underflow.target);
  db.add(repeat);
  queries.add(underflow.query);
  queries.add(repeat);
  ScoreConfig<recurrences::GapCosts> config;
  config.params = {10, 1};
  ScoreStats device_stats, host_stats;
  config.stats = &device_stats;
  DatabaseScorer<Policy> device(engine::view_of(db), matrix, matrix.size, config);
  REQUIRE(device.backend() == Backend::Device);
  CHECK_FALSE(device.uses_vector_lanes());  // a host question: the device backend has its own lanes
  const auto on_device = device.score(engine::view_of(queries));
  config.backend = Backend::Host;
  config.stats = &host_stats;
  const auto on_host = DatabaseScorer<Policy>(engine::view_of(db), matrix, matrix.size, config).score(engine::view_of(queries));
  config.backend = Backend::Device;
  config.stats = nullptr;
  config.device_bytes = 1 << 20;  // far below the database: streamed
  const auto streamed = DatabaseScorer<Policy>(engine::view_of(db), matrix, matrix.size, config).score(engine::view_of(queries));
  // The textbook scores of every pair, the homopolymer's included; those past the 16-bit lane (below its minus
  // infinity, above its greatest) must have reached s32, whatever the policy's `fits` and `overflowed` say.
  std::uint64_t past_16_bits = 0, below_16_bits = 0;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const std::vector<std::uint8_t> query = queries.get(q);
    const std::vector<long> expected =
        test::reference_scores(db, [&](const auto& t) { return test::reference_gotoh(mode, t, query, matrix, 10, 1); });
    for (std::size_t t = 0; t < db.size(); ++t) {
      INFO("query " << q << " target " << t << " reference " << expected[t]);
      REQUIRE(on_host[q][t] == expected[t]);
      REQUIRE(on_device[q][t] == expected[t]);
      REQUIRE(streamed[q][t] == expected[t]);
      below_16_bits += expected[t] < lanes::s16x2::neg_inf;
      past_16_bits += expected[t] < lanes::s16x2::neg_inf || expected[t] > lanes::s16x2::max_value;
    }
  }
  REQUIRE(on_host.back().back() > 32767);  // the self-hit
  if (mode == test::Mode::Global) REQUIRE(below_16_bits > 0);
  REQUIRE(device_stats.narrow_bits == 16);
  CHECK(device_stats.kernel_seconds > 0);
  CHECK(device_stats.where.find("host") == std::string::npos);
  CHECK(device_stats.cascade.cells == host_stats.cascade.cells);
  CHECK(device_stats.cascade.rescored_overflow + device_stats.cascade.wide_only >= past_16_bits);
  CHECK(past_16_bits > 0);
}
}  // namespace

TEST_CASE("DatabaseScorer: device == host == textbook, local", "[scorer][gpu]") { check_device_equals_host<Local>(test::Mode::Local); }
TEST_CASE("DatabaseScorer: device == host == textbook, global", "[scorer][gpu]") { check_device_equals_host<Global>(test::Mode::Global); }

// The database split across GPUs (config.devices): three parts on the first GPU side by side, then one part on each
// GPU the machine has, resident and streamed; every score is the host backend's, the cells are counted once, and the
// caller's current device is left as it was.
TEST_CASE("DatabaseScorer: the database split across devices scores as one", "[scorer][gpu]") {
  std::mt19937_64 rng(23);
  const test::RandomMatrix matrix(20, -4, 9, 4);
  test::CodesSet db, queries;
  for (int k = 0; k < 700; ++k) db.add(test::random_codes(rng, k % 50 == 0 ? 3000 + rng() % 3000 : 1 + rng() % 500, 20));
  for (int len : {1, 33, 250, 900}) queries.add(test::random_codes(rng, len, 20));
  const std::vector<std::uint8_t> repeat = test::overflowing_query(matrix, matrix.size);
  db.add(repeat);  // rescored in 32 bits in whichever part it lands
  queries.add(repeat);
  ScoreConfig<recurrences::GapCosts> config;
  config.params = {10, 1};
  config.backend = Backend::Host;
  ScoreStats host_stats;
  config.stats = &host_stats;
  const auto on_host = DatabaseScorer<Local>(engine::view_of(db), matrix, matrix.size, config).score(engine::view_of(queries));

  std::vector<int> every_gpu;
  for (int d = 0; d < device_count(); ++d) every_gpu.push_back(d);
  for (const std::vector<int>& devices : {std::vector<int>{0, 0, 0}, every_gpu}) {
    for (std::size_t device_bytes : {std::size_t{0}, std::size_t{1} << 20}) {
      INFO(devices.size() << " parts, device bytes " << device_bytes);
      config.backend = Backend::Device;
      config.devices = devices;
      config.device_bytes = device_bytes;
      ScoreStats stats;
      config.stats = &stats;
      std::size_t progress_calls = 0, last_done = 0;
      config.progress = [&](std::size_t done, std::size_t total) {
        ++progress_calls;
        REQUIRE(done > last_done);
        REQUIRE(total == queries.size());
        last_done = done;
      };
      int before = -1;
      REQUIRE(cudaGetDevice(&before) == cudaSuccess);
      DatabaseScorer<Local> scorer(engine::view_of(db), matrix, matrix.size, config);
      const auto scores = scorer.score(engine::view_of(queries));
      int after = -1;
      REQUIRE(cudaGetDevice(&after) == cudaSuccess);
      CHECK(after == before);
      REQUIRE(scores == on_host);
      CHECK(stats.cascade.cells == host_stats.cascade.cells);
      CHECK(stats.cascade.rescored_overflow + stats.cascade.wide_only > 0);
      CHECK(last_done == queries.size());
      if (devices.size() > 1) CHECK(stats.where.find(std::to_string(devices.size()) + " x ") == 0);
    }
  }
  config.devices = {device_count()};  // one past the last
  REQUIRE_THROWS_AS(DatabaseScorer<Local>(engine::view_of(db), matrix, matrix.size, config), std::invalid_argument);
}
