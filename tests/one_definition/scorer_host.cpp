// One class, one definition: DatabaseScorer<Local> built and used in a plain C++ unit (this one) and in a unit
// compiled by nvcc (scorer_cuda.cu) of the same program is one type. The program links only if both units see the
// same size and alignment (scorer_units.hpp), and, where GCC compiles both, only if its link-time ODR check finds
// the scorer's definition (and every other type the units share) the same in both (tests/one_definition/CMakeLists.txt).
// Scorers built in either unit are used in the other; without a GPU both run on the host, with one both run on it,
// and the scores equal the textbook DP's.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "../support/reference_dp.hpp"
#include "scorer_units.hpp"

using namespace one_definition;

namespace {

struct Inputs {
  cudp::test::CodesSet db, queries;
  cudp::test::RandomMatrix matrix{20, -4, 9, 5};
  Inputs() {
    std::mt19937_64 rng(101);
    for (int k = 0; k < 60; ++k) db.add(cudp::test::random_codes(rng, 1 + rng() % 250, 20));
    for (int len : {1, 40, 210}) queries.add(cudp::test::random_codes(rng, len, 20));
  }
  void check(const std::vector<std::vector<std::int32_t>>& scores) const {
    REQUIRE(scores.size() == queries.size());
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (std::size_t t = 0; t < db.size(); ++t)
        REQUIRE(scores[q][t] == cudp::test::reference_gotoh(cudp::test::Mode::Local, db.get(t), queries.get(q), matrix, 10, 1));
  }
};

}  // namespace

TEST_CASE("DatabaseScorer has one layout in a C++ and a CUDA translation unit", "[scorer][odr]") {
  CHECK(cuda_unit_layout(ScorerLayout{}) == sizeof(Scorer));
}

TEST_CASE("A scorer built in either unit works in the other", "[scorer][odr]") {
  const Inputs in;
  const cudp::SubstitutionTable matrix = cudp::SubstitutionTable::of(in.matrix, in.matrix.size);
  Config config;
  config.params = {10, 1};
  config.threads = 2;
  const bool gpu = cuda_runtime_device_count() > 0;
  const cudp::Backend expected = gpu ? cudp::Backend::Device : cudp::Backend::Host;

  // The program has the device backend (the CUDA unit builds this scorer): every unit sees the device, if any.
  CHECK(cudp::device_count() == cuda_runtime_device_count());
  CHECK(cudp::device_backend_available() == gpu);

  Scorer here(cudp::engine::view_of(in.db), in.matrix, in.matrix.size, config);
  CHECK(here.backend() == expected);
  in.check(score_in_cuda_unit(here, cudp::engine::view_of(in.queries)));

  std::unique_ptr<Scorer> there = build_in_cuda_unit(cudp::engine::view_of(in.db), matrix, config);
  CHECK(there->backend() == expected);
  CHECK(there->uses_vector_lanes() == here.uses_vector_lanes());
  CHECK(there->stats().where == here.stats().where);
  in.check(there->score(cudp::engine::view_of(in.queries)));

  // A device request: honoured with a GPU; without one the error is the missing device, not a missing backend.
  config.backend = cudp::Backend::Device;
  if (gpu) {
    CHECK(Scorer(cudp::engine::view_of(in.db), in.matrix, in.matrix.size, config).backend() == cudp::Backend::Device);
  } else {
    CHECK_THROWS_WITH(Scorer(cudp::engine::view_of(in.db), in.matrix, in.matrix.size, config),
                      Catch::Contains("no CUDA device found"));
  }
}
