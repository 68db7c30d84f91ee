#pragma once
// Shared body of the device tier tests: every tier on the GPU against the host tier in the same lane (bit for
// bit, overflow flags included) and against the textbook reference, on random and adversarial targets.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <cudp/engine/device_scorer.cuh>
#include <cudp/engine/host_scorer.hpp>
#include <cudp/lanes.hpp>

#include "../support/reference_dp.hpp"

namespace cudp::test {

// Targets of lengths chosen to land in all three tiers with small thresholds, plus adversarial ones: length 1,
// the query and four copies of it (with `overflow_query`, scores past 16 bits), and a long target that crosses
// many strips.
inline CodesSet adversarial_db(std::mt19937_64& rng, int alphabet, const std::vector<std::uint8_t>& query) {
  CodesSet db;
  for (std::size_t len : {1, 1, 2, 3, 15, 16, 17, 31, 33, 64, 100, 129, 200, 250, 300, 301, 600, 1000, 2500, 9000})
    db.add(random_codes(rng, len, alphabet));
  std::uniform_int_distribution<std::size_t> len(1, 700);
  for (int k = 0; k < 300; ++k) db.add(random_codes(rng, len(rng), alphabet));
  db.add(query);
  std::vector<std::uint8_t> repeated;
  for (int k = 0; k < 4; ++k) repeated.insert(repeated.end(), query.begin(), query.end());
  db.add(repeated);
  return db;
}

// The cascade's counts as they must come out, from the exact scores rather than the narrow pass: a target is wide
// from the start where the narrow policy's bound says it may not fit, and rescored where its exact score is one
// the narrow policy flags as possibly wrapped.
template <template <class> class Policy, class Narrow, class Matrix>
engine::CascadeStats expected_cascade(const typename Policy<lanes::s32>::Params& params, const Matrix& matrix,
                                      int alphabet, const std::vector<std::uint8_t>& query, const CodesSet& db,
                                      const std::vector<std::int32_t>& exact) {
  using P = Policy<Narrow>;
  const int m = static_cast<int>(query.size());
  // The problem's shape from the exact (s32) profile, as the engine takes it.
  const auto profile = engine::build_profile<Policy<lanes::s32>>(params, matrix, alphabet, query.data(), m, 1);
  const recurrences::ProblemShape shape = engine::shape_of(profile.data, alphabet, profile.stride, m);
  const P narrow(params, shape);
  engine::CascadeStats expected;
  for (std::size_t t = 0; t < db.size(); ++t) {
    if (!P::fits(params, shape, static_cast<long>(db.get(t).size())))
      ++expected.wide_only;
    else if (narrow.overflowed(exact[t]))
      ++expected.rescored_overflow;
  }
  return expected;
}

// `reference(target, query)` is the independent expected score. `overflow_query`, where given, is run as one more
// query, and the narrow lane must then hand targets to s32 (rescored or wide from the start) unless it is s32.
template <template <class> class Policy, class Narrow, class Matrix, class Reference>
void check_device_tiers(const typename Policy<lanes::s32>::Params& params, const Matrix& matrix, int alphabet,
                        std::uint64_t seed, Reference reference, const std::vector<std::uint8_t>& overflow_query = {}) {
  std::mt19937_64 rng(seed);
  engine::TierThresholds thresholds{100, 700};  // small, so every tier gets targets
  std::vector<std::vector<std::uint8_t>> one_by_one;
  for (int qlen : {1, 17, 130, 700, 2600}) one_by_one.push_back(random_codes(rng, qlen, alphabet));
  if (!overflow_query.empty()) one_by_one.push_back(overflow_query);
  for (const auto& query : one_by_one) {
    const int qlen = static_cast<int>(query.size());
    CodesSet db = adversarial_db(rng, alphabet, query);
    auto view = engine::view_of(db);
    engine::CascadeStats host_cascade;
    auto host = engine::score_on_host<Policy, Narrow>(params, matrix, alphabet, query.data(), qlen, view, 0, &host_cascade);
    // The textbook reference where it is affordable.
    auto affordable = [&](std::size_t t) { return db.get(t).size() * qlen <= 3'000'000; };
    std::vector<long> expected(db.size(), 0);
    for (std::size_t t = 0; t < db.size(); ++t)
      if (affordable(t)) expected[t] = reference(db.get(t), query);
    const engine::CascadeStats cascade = expected_cascade<Policy, Narrow>(params, matrix, alphabet, query, db, host);
    INFO(Narrow::name << " query " << qlen << ": " << cascade.rescored_overflow << " targets to rescore, "
                      << cascade.wide_only << " wide from the start");
    REQUIRE(host_cascade.rescored_overflow == cascade.rescored_overflow);
    REQUIRE(host_cascade.wide_only == cascade.wide_only);
    if (&query == &one_by_one.back() && !overflow_query.empty() && !std::is_same_v<Narrow, lanes::s32>)
      REQUIRE(cascade.rescored_overflow + cascade.wide_only > 0);

    auto check = [&](engine::DeviceScorer<Policy, Narrow>& scorer, const char* how) {
      engine::CascadeStats device_cascade;
      auto device = scorer.score(params, matrix, alphabet, query.data(), qlen, &device_cascade);
      REQUIRE(device_cascade.rescored_overflow == cascade.rescored_overflow);
      REQUIRE(device_cascade.wide_only == cascade.wide_only);
      for (std::size_t t = 0; t < db.size(); ++t) {
        INFO(Narrow::name << " " << how << " query " << qlen << " target " << t << " length " << db.get(t).size()
                          << " reference " << (affordable(t) ? std::to_string(expected[t]) : "-"));
        REQUIRE(device[t] == host[t]);
        if (affordable(t)) REQUIRE(device[t] == expected[t]);
      }
    };
    engine::DeviceScorer<Policy, Narrow> scorer(view, thresholds, static_cast<std::uint8_t>(alphabet));
    REQUIRE(!scorer.streamed());
    REQUIRE(scorer.tasks_in("thread") > 0);
    REQUIRE(scorer.tasks_in("warp") > 0);
    REQUIRE(scorer.tasks_in("block") > 0);
    // Every warp-tier shape of the menu, not only the one this query length would pick.
    for (std::size_t k = 0; k < scorer.warp_menu().size(); ++k) {
      scorer.force_warp_shape(static_cast<int>(k));
      std::string how = "warp shape " + std::to_string(scorer.warp_menu()[k].group) + "x" +
                        std::to_string(scorer.warp_menu()[k].columns);
      check(scorer, how.c_str());
    }
    // A memory budget far below the database: streamed in batches, uploads overlapping kernels.
    engine::DeviceScorer<Policy, Narrow> streamed(view, thresholds, static_cast<std::uint8_t>(alphabet),
                                                  std::max(scorer.footprint_bytes() / 2, 2 * scorer.largest_task_bytes()));
    REQUIRE(streamed.streamed());
    REQUIRE(streamed.batch_count() > 3);
    check(streamed, "streamed");
    check(streamed, "streamed, second query");
  }

  // Several queries in one call (the batch loop outside the query loop), resident and streamed: every query's
  // scores and the summed overflow counts equal the host's.
  std::vector<std::vector<std::uint8_t>> queries;
  for (int qlen : {1, 130, 700, 2600}) queries.push_back(random_codes(rng, qlen, alphabet));
  CodesSet db = adversarial_db(rng, alphabet, queries[1]);
  if (!overflow_query.empty()) {
    queries.push_back(overflow_query);
    db.add(overflow_query);
  }
  auto view = engine::view_of(db);
  std::vector<std::vector<std::int32_t>> host;
  engine::CascadeStats host_cascade;
  for (const auto& q : queries)
    host.push_back(engine::score_on_host<Policy, Narrow>(params, matrix, alphabet, q.data(), static_cast<int>(q.size()),
                                                         view, 0, &host_cascade));
  engine::CascadeStats summed;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const engine::CascadeStats one = expected_cascade<Policy, Narrow>(params, matrix, alphabet, queries[q], db, host[q]);
    summed.rescored_overflow += one.rescored_overflow;
    summed.wide_only += one.wide_only;
  }
  REQUIRE(host_cascade.rescored_overflow == summed.rescored_overflow);
  REQUIRE(host_cascade.wide_only == summed.wide_only);
  if (!overflow_query.empty() && !std::is_same_v<Narrow, lanes::s32>) REQUIRE(summed.rescored_overflow + summed.wide_only > 0);
  using Scorer = engine::DeviceScorer<Policy, Narrow>;
  std::vector<typename Scorer::Query> list;
  for (const auto& q : queries) list.push_back({q.data(), static_cast<int>(q.size())});
  Scorer resident(view, thresholds, static_cast<std::uint8_t>(alphabet));
  Scorer streamed(view, thresholds, static_cast<std::uint8_t>(alphabet),
                  std::max(resident.footprint_bytes() / 2, 2 * resident.largest_task_bytes()));
  REQUIRE(streamed.streamed());
  for (Scorer* scorer : {&resident, &streamed}) {
    engine::CascadeStats cascade;
    auto all = scorer->score_queries(params, matrix, alphabet, list.data(), list.size(), &cascade);
    REQUIRE(all.size() == queries.size());
    REQUIRE(cascade.rescored_overflow == host_cascade.rescored_overflow);
    REQUIRE(cascade.wide_only == host_cascade.wide_only);
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (std::size_t t = 0; t < db.size(); ++t) {
        INFO(Narrow::name << (scorer->streamed() ? " streamed" : " resident") << ", several queries: query " << q
                          << " target " << t);
        REQUIRE(all[q][t] == host[q][t]);
      }
  }
}

}  // namespace cudp::test
