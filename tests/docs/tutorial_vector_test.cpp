// The tutorial's recurrence, as a policy of one's own (tutorial_policy.hpp), in the host's vector lanes through the
// front door: tutorial_vector_kernels.cpp compiles its kernels with engine/host_vector_kernels-inl.hpp, and the
// scorer finds them, says so, and gives the textbook distances on random inputs in every instruction set of this
// CPU, through every step of the 8 -> 16 -> 32-bit cascade; a policy without kernels says that it runs in 32 bits,
// with the same distances. The region between the snippet markers is shown in docs/tutorial-recurrence.md.
#include <catch2/catch.hpp>

#include <hwy/targets.h>

#include <algorithm>
#include <random>
#include <string>

#include <cudp/engine/host_scorer.hpp>
#include <cudp/lanes.hpp>

#include "../support/instruction_sets.hpp"
#include "../support/reference_dp.hpp"
#include "../support/test_database.hpp"
#include "tutorial_policy.hpp"

// [snippet:tutorial-vector-front-door]
#include <cudp/scorer.hpp>

// Edit distances of the query to every target, on the host: in vector lanes where the program compiles mine::Edit's
// kernels (the unit above), in the 32-bit host tier otherwise; `in_vectors` says which.
std::vector<std::int32_t> edit_distances(const cudp::engine::SequencesView& db, const std::vector<std::uint8_t>& query,
                                         bool& in_vectors, cudp::ScoreStats* stats = nullptr) {
  cudp::ScoreConfig<cudp::recurrences::LevenshteinParams> config;
  config.backend = cudp::Backend::Host;
  config.stats = stats;
  cudp::DatabaseScorer<mine::Edit> scorer(db, /*matrix, unused=*/[](int, int) { return 0; }, 4, config);
  in_vectors = scorer.uses_vector_lanes();
  return scorer.score(query.data(), static_cast<int>(query.size()));
}
// [/snippet]

TEST_CASE("tutorial: a policy of one's own runs in the host's vector lanes through the front door",
          "[tutorial][host_vector]") {
  REQUIRE(cudp::engine::host_vector::kernels_of<mine::Edit>() != nullptr);
  std::mt19937_64 rng(20261206);
  // Lengths around the vector widths (16 to 64 lanes) and past what 8-bit lanes hold (fits: up to 125 residues),
  // random and mutated targets.
  for (std::size_t qlen : {1, 9, 64, 120, 300}) {
    const auto query = cudp::test::random_codes(rng, qlen, 4);
    cudp::test::TestDatabase db;
    // ... and one past what 16-bit lanes hold (32765), for the 32-bit tier.
    for (std::size_t len : {1, 2, 15, 16, 17, 63, 64, 65, 124, 125, 126, 200, 700, 33000}) db.add(cudp::test::random_codes(rng, len, 4));
    std::uniform_int_distribution<std::size_t> length(1, 160);
    while (db.targets.size() < 120) db.add(cudp::test::random_codes(rng, length(rng), 4));
    std::vector<int> expected;
    std::uint64_t in_8_bits = 0;  // Levenshtein::fits: max(n, m) + 1 < 127
    for (const auto& t : db.targets) {
      expected.push_back(cudp::test::reference_levenshtein(t, query));
      in_8_bits += std::max(t.size(), qlen) + 1 < 127;
    }
    const auto exact = cudp::engine::score_on_host<mine::Edit, cudp::lanes::s32>({}, 0, 4, query.data(),
                                                                                 static_cast<int>(qlen), db.view(), 2);
    REQUIRE(std::vector<int>(exact.begin(), exact.end()) == expected);
    cudp::test::in_every_instruction_set([&](bool scalar) {
      INFO("query length " << qlen);
      bool in_vectors = false;
      cudp::ScoreStats stats;
      const auto d = edit_distances(db.view(), query, in_vectors, &stats);
      CHECK(in_vectors == !scalar);
      REQUIRE(std::vector<int>(d.begin(), d.end()) == expected);
      CHECK(stats.narrow_bits == (scalar ? 32 : 8));
      CHECK((stats.where.find(" vectors") != std::string::npos) == !scalar);
      CHECK(stats.cascade.narrow_targets == (scalar ? 0 : in_8_bits));
      CHECK(stats.cascade.narrow_targets + stats.cascade.wide_only == db.targets.size());
    });
  }
}

TEST_CASE("tutorial: a policy without kernels says that it runs in the 32-bit host tier", "[tutorial][host_vector]") {
  CHECK(cudp::engine::host_vector::kernels_of<mine::EditWithoutKernels>() == nullptr);
  std::mt19937_64 rng(20261207);
  const auto query = cudp::test::random_codes(rng, 50, 4);
  cudp::test::TestDatabase db;
  for (int k = 0; k < 40; ++k) db.add(cudp::test::random_codes(rng, 1 + rng() % 100, 4));
  cudp::ScoreStats stats;
  cudp::ScoreConfig<cudp::recurrences::LevenshteinParams> config;
  config.threads = 2;
  config.stats = &stats;
  cudp::DatabaseScorer<mine::EditWithoutKernels> scorer(db.view(), [](int, int) { return 0; }, 4, config);
  CHECK_FALSE(scorer.uses_vector_lanes());
  const auto d = scorer.score(query.data(), static_cast<int>(query.size()));
  for (std::size_t t = 0; t < db.targets.size(); ++t) REQUIRE(d[t] == cudp::test::reference_levenshtein(db.targets[t], query));
  CHECK(stats.where == "host, 2 threads");
  CHECK(stats.narrow_bits == 32);
  CHECK(stats.cascade.wide_only == db.targets.size());
  bool in_vectors = false;
  CHECK(edit_distances(db.view(), query, in_vectors) == d);
  CHECK(in_vectors == cudp::engine::host_vector::has_kernels<mine::Edit>());
}
