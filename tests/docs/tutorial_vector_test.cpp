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

namespace {

// D(i,0) = i, D(0,j) = j, D(i,j) = min(D(i-1,j-1) + [a_i != b_j], D(i-1,j) + 1, D(i,j-1) + 1): the full matrix.
int textbook_levenshtein(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  std::vector<int> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int up = row[j];
      row[j] = std::min({diagonal + (a[i - 1] != b[j - 1] ? 1 : 0), up + 1, row[j - 1] + 1});
      diagonal = up;
    }
  }
  return row[b.size()];
}

struct Database {
  std::vector<std::vector<std::uint8_t>> targets;
  std::vector<std::uint8_t> residues;
  std::vector<std::uint64_t> offsets{0};

  void add(const std::vector<std::uint8_t>& t) {
    targets.push_back(t);
    residues.insert(residues.end(), t.begin(), t.end());
    offsets.push_back(residues.size());
  }
  cudp::engine::SequencesView view() const { return {residues.data(), offsets.data(), targets.size()}; }
};

std::vector<std::uint8_t> random_dna(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::uint8_t> s(n);
  for (auto& c : s) c = static_cast<std::uint8_t>(rng() % 4);
  return s;
}

// Runs `body(scalar)` once per instruction set that both the CPU and the kernels have, with the kernels made to run
// in it; `scalar`: one without vectors.
template <class Body>
void in_every_instruction_set(Body body) {
  const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  REQUIRE(!targets.empty());
  for (std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    INFO("instruction set " << hwy::TargetName(target));
    body(target == HWY_SCALAR || target == HWY_EMU128);
  }
  hwy::SetSupportedTargetsForTest(0);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
}

}  // namespace

TEST_CASE("tutorial: a policy of one's own runs in the host's vector lanes through the front door",
          "[tutorial][host_vector]") {
  REQUIRE(cudp::engine::host_vector::kernels_of<mine::Edit>() != nullptr);
  std::mt19937_64 rng(20261206);
  // Lengths around the vector widths (16 to 64 lanes) and past what 8-bit lanes hold (fits: up to 125 residues),
  // random and mutated targets.
  for (std::size_t qlen : {1, 9, 64, 120, 300}) {
    const auto query = random_dna(rng, qlen);
    Database db;
    // ... and one past what 16-bit lanes hold (32765), for the 32-bit tier.
    for (std::size_t len : {1, 2, 15, 16, 17, 63, 64, 65, 124, 125, 126, 200, 700, 33000}) db.add(random_dna(rng, len));
    std::uniform_int_distribution<std::size_t> length(1, 160);
    while (db.targets.size() < 120) db.add(random_dna(rng, length(rng)));
    std::vector<int> expected;
    std::uint64_t in_8_bits = 0;  // Levenshtein::fits: max(n, m) + 1 < 127
    for (const auto& t : db.targets) {
      expected.push_back(textbook_levenshtein(t, query));
      in_8_bits += std::max(t.size(), qlen) + 1 < 127;
    }
    const auto exact = cudp::engine::score_on_host<mine::Edit, cudp::lanes::s32>({}, 0, 4, query.data(),
                                                                                 static_cast<int>(qlen), db.view(), 2);
    REQUIRE(std::vector<int>(exact.begin(), exact.end()) == expected);
    in_every_instruction_set([&](bool scalar) {
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
  const auto query = random_dna(rng, 50);
  Database db;
  for (int k = 0; k < 40; ++k) db.add(random_dna(rng, 1 + rng() % 100));
  cudp::ScoreStats stats;
  cudp::ScoreConfig<cudp::recurrences::LevenshteinParams> config;
  config.threads = 2;
  config.stats = &stats;
  cudp::DatabaseScorer<mine::EditWithoutKernels> scorer(db.view(), [](int, int) { return 0; }, 4, config);
  CHECK_FALSE(scorer.uses_vector_lanes());
  const auto d = scorer.score(query.data(), static_cast<int>(query.size()));
  for (std::size_t t = 0; t < db.targets.size(); ++t) REQUIRE(d[t] == textbook_levenshtein(db.targets[t], query));
  CHECK(stats.where == "host, 2 threads");
  CHECK(stats.narrow_bits == 32);
  CHECK(stats.cascade.wide_only == db.targets.size());
  bool in_vectors = false;
  CHECK(edit_distances(db.view(), query, in_vectors) == d);
  CHECK(in_vectors == cudp::engine::host_vector::has_kernels<mine::Edit>());
}
