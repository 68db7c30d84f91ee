#pragma once
// Shared body of the device tier tests: every tier on the GPU against the host tier in the same lane (bit for
// bit, overflow flags included) and both against the textbook reference on every pair, the overflowing ones
// included, on random and adversarial targets.
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

// The cascade's counts as they must come out, from the textbook scores rather than the narrow pass: a target is
// wide from the start where the narrow policy's bound says it may not fit, and rescored where its exact score is
// one the narrow policy flags as possibly wrapped. `past_lane` below checks what this cannot: the bound itself.
template <template <class> class Policy, class Narrow, class Matrix>
engine::CascadeStats expected_cascade(const typename Policy<lanes::s32>::Params& params, const Matrix& matrix,
                                      int alphabet, const std::vector<std::uint8_t>& query, const CodesSet& db,
                                      const std::vector<long>& exact) {
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
    else if (narrow.overflowed(static_cast<int>(exact[t])))
      ++expected.rescored_overflow;
  }
  return expected;
}

// How many textbook scores the narrow lane cannot hold (below its minus infinity or its least value, above its
// greatest): the cascade must hand at least these to s32, whatever the policy's `fits` and `overflowed` say.
template <class Narrow>
std::uint64_t past_lane(const std::vector<long>& exact) {
  constexpr long lowest = Narrow::neg_inf > Narrow::min_value ? Narrow::neg_inf : Narrow::min_value;
  return static_cast<std::uint64_t>(
      std::count_if(exact.begin(), exact.end(), [](long s) { return s < lowest || s > Narrow::max_value; }));
}

// `reference(target, query)` is the independent expected score. `overflow_query` and `underflow.query`, where
// given, are run as more queries (the latter with `underflow.target` added to its database), and some of their
// textbook scores must then be past the narrow lane, unless it is s32.
template <template <class> class Policy, class Narrow, class Matrix, class Reference>
void check_device_tiers(const typename Policy<lanes::s32>::Params& params, const Matrix& matrix, int alphabet,
                        std::uint64_t seed, Reference reference, const std::vector<std::uint8_t>& overflow_query = {},
                        const UnderflowingPair& underflow = {}) {
  std::mt19937_64 rng(seed);
  engine::TierThresholds thresholds{100, 700};  // small, so every tier gets targets
  std::vector<std::vector<std::uint8_t>> one_by_one;
  for (int qlen : {1, 17, 130, 700, 2600}) one_by_one.push_back(random_codes(rng, qlen, alphabet));
  const std::size_t random_queries = one_by_one.size();
  if (!overflow_query.empty()) one_by_one.push_back(overflow_query);
  if (!underflow.query.empty()) one_by_one.push_back(underflow.query);
  for (const auto& query : one_by_one) {
    const int qlen = static_cast<int>(query.size());
    const bool extreme = &query - one_by_one.data() >= static_cast<std::ptrdiff_t>(random_queries);
    CodesSet db = adversarial_db(rng, alphabet, query);
    if (!underflow.query.empty() && &query == &one_by_one.back()) db.add(underflow.target);
    auto view = engine::view_of(db);
    engine::CascadeStats host_cascade;
    auto host = engine::score_on_host<Policy, Narrow>(params, matrix, alphabet, query.data(), qlen, view, 0, &host_cascade);
    const std::vector<long> expected = reference_scores(db, [&](const auto& t) { return long{reference(t, query)}; });
    const engine::CascadeStats cascade =
        expected_cascade<Policy, Narrow>(params, matrix, alphabet, query, db, expected);
    const std::uint64_t past = past_lane<Narrow>(expected);
    INFO(Narrow::name << " query " << qlen << ": " << cascade.rescored_overflow << " targets to rescore, "
                      << cascade.wide_only << " wide from the start, " << past << " past the narrow lane");
    for (std::size_t t = 0; t < db.size(); ++t) {
      INFO("host, target " << t << " length " << db.get(t).size());
      REQUIRE(host[t] == expected[t]);
    }
    REQUIRE(host_cascade.rescored_overflow == cascade.rescored_overflow);
    REQUIRE(host_cascade.wide_only == cascade.wide_only);
    REQUIRE(cascade.rescored_overflow + cascade.wide_only >= past);
    if (extreme && !std::is_same_v<Narrow, lanes::s32>) REQUIRE(past > 0);

    auto check = [&](engine::DeviceScorer<Policy, Narrow>& scorer, const char* how) {
      engine::CascadeStats device_cascade;
      auto device = scorer.score(params, matrix, alphabet, query.data(), qlen, &device_cascade);
      REQUIRE(device_cascade.rescored_overflow == cascade.rescored_overflow);
      REQUIRE(device_cascade.wide_only == cascade.wide_only);
      for (std::size_t t = 0; t < db.size(); ++t) {
        INFO(Narrow::name << " " << how << " query " << qlen << " target " << t << " length " << db.get(t).size()
                          << " reference " << expected[t]);
        REQUIRE(device[t] == expected[t]);
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
  // scores and the summed overflow counts equal the host's, whose scores are the textbook's.
  std::vector<std::vector<std::uint8_t>> queries;
  for (int qlen : {1, 130, 700, 2600}) queries.push_back(random_codes(rng, qlen, alphabet));
  CodesSet db = adversarial_db(rng, alphabet, queries[1]);
  if (!overflow_query.empty()) {
    queries.push_back(overflow_query);
    db.add(overflow_query);
  }
  if (!underflow.query.empty()) {
    queries.push_back(underflow.query);
    db.add(underflow.target);
  }
  auto view = engine::view_of(db);
  std::vector<std::vector<std::int32_t>> host;
  engine::CascadeStats host_cascade;
  for (const auto& q : queries)
    host.push_back(engine::score_on_host<Policy, Narrow>(params, matrix, alphabet, q.data(), static_cast<int>(q.size()),
                                                         view, 0, &host_cascade));
  engine::CascadeStats summed;
  std::uint64_t past = 0;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const std::vector<long> expected =
        reference_scores(db, [&](const auto& t) { return long{reference(t, queries[q])}; });
    for (std::size_t t = 0; t < db.size(); ++t) {
      INFO("host, several queries: query " << q << " target " << t);
      REQUIRE(host[q][t] == expected[t]);
    }
    const engine::CascadeStats one =
        expected_cascade<Policy, Narrow>(params, matrix, alphabet, queries[q], db, expected);
    summed.rescored_overflow += one.rescored_overflow;
    summed.wide_only += one.wide_only;
    past += past_lane<Narrow>(expected);
  }
  REQUIRE(host_cascade.rescored_overflow == summed.rescored_overflow);
  REQUIRE(host_cascade.wide_only == summed.wide_only);
  REQUIRE(summed.rescored_overflow + summed.wide_only >= past);
  if (!overflow_query.empty() && !std::is_same_v<Narrow, lanes::s32>) REQUIRE(past > 0);
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
