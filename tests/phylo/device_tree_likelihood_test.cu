// The device's tree likelihood (phylo/device_tree_likelihood.cuh, tiers/pruning.cuh) against the host tier
// (phylo/tree_likelihood.hpp), which the host tests check against a brute-force sum, with each pruning tier (by
// pattern; by state, 1 or 4 patterns per thread): 4, 20 and 61 states, double
// and single precision, random and caterpillar trees (deep enough that rescaling must happen), rooted and not,
// +G and +I, gaps and ambiguity codes in the tips, and a second model on the same instance.
#include <catch2/catch.hpp>
#include <cmath>
#include <cudp/phylo/device_tree_likelihood.cuh>
#include <vector>

#include "../support/random_tree_problem.hpp"

namespace {

// Both device tiers against the host.
template <class Real>
void compare(const cudp::test::RandomTreeProblem& p, double tolerance) {
  const auto want = cudp::phylo::evaluate_on_host<Real>(p.plan, p.data, p.model);
  using cudp::tiers::PruningTier;
  for (const cudp::tiers::PruningTuning tuning :
       {cudp::tiers::PruningTuning{PruningTier::by_pattern, 1}, cudp::tiers::PruningTuning{PruningTier::by_state, 1},
        cudp::tiers::PruningTuning{PruningTier::by_state, 4}}) {
    INFO("tier " << (tuning.tier == PruningTier::by_pattern ? "by pattern" : "by state") << ", "
                 << tuning.patterns_per_thread << " pattern(s) per thread");
    cudp::phylo::DeviceTreeLikelihood<Real> device(p.plan, p.data, p.model, tuning);
    const auto got = device.evaluate();
    REQUIRE(std::isfinite(want.log_likelihood));
    CHECK(got.log_likelihood == Approx(want.log_likelihood).epsilon(tolerance));
    REQUIRE(got.pattern_log_likelihoods.size() == want.pattern_log_likelihoods.size());
    int differ = 0;
    for (std::size_t i = 0; i < got.pattern_log_likelihoods.size(); ++i)
      differ += !(std::abs(got.pattern_log_likelihoods[i] - want.pattern_log_likelihoods[i]) <=
                  tolerance * std::abs(want.pattern_log_likelihoods[i]) + tolerance);
    CHECK(differ == 0);
  }
}

}  // namespace

TEST_CASE("device likelihoods equal the host's on small problems", "[phylo][small]") {
  for (const int states : {4, 20}) {
    INFO("states " << states);
    const auto p = cudp::test::make_random_tree_problem(1, 6, 37, states, 4, false, false, 0.2, 0.1);
    compare<double>(p, 1e-12);
    compare<float>(p, 2e-5);
  }
}

TEST_CASE("device likelihoods equal the host's: random shapes", "[phylo]") {
  std::uint32_t seed = 100;
  for (const int states : {4, 20, 61})
    for (const int categories : {1, 4})
      for (const bool rooted : {false, true}) {
        const int taxa = states == 61 ? 12 : 40;
        const int patterns = states == 61 ? 300 : 3001;
        INFO("states " << states << " categories " << categories << " rooted " << rooted);
        const auto p = cudp::test::make_random_tree_problem(++seed, taxa, patterns, states, categories, rooted, false,
                                                            0.15, categories > 1 ? 0.2 : 0.0);
        compare<double>(p, 1e-12);
        compare<float>(p, 2e-5);
      }
}

TEST_CASE("device likelihoods: deep caterpillars rescale as the host does", "[phylo]") {
  for (const int states : {4, 20}) {
    const auto p = cudp::test::make_random_tree_problem(7, 1200, 257, states, 4, true, true, 0.3);
    compare<double>(p, 1e-11);
    compare<float>(p, 2e-5);
  }
}

TEST_CASE("device likelihoods: a new model on the same instance", "[phylo]") {
  auto p = cudp::test::make_random_tree_problem(9, 30, 999, 4, 4, false, false, 0.1, 0.25);
  cudp::phylo::DeviceTreeLikelihood<double> device(p.plan, p.data, p.model);
  const auto before = device.evaluate(false);
  auto q = cudp::test::make_random_tree_problem(10, 30, 999, 4, 4, false, false, 0.1, 0.05);
  p.model = q.model;  // same tree and data, another model
  device.set_model(p.model);
  const auto after = device.evaluate(false);
  CHECK(after.log_likelihood != before.log_likelihood);
  CHECK(after.log_likelihood ==
        Approx(cudp::phylo::evaluate_on_host<double>(p.plan, p.data, p.model).log_likelihood).epsilon(1e-12));
  // And new branch lengths.
  for (double& l : p.plan.edge_length) l *= 1.7;
  device.set_edge_lengths(p.plan.edge_length);
  CHECK(device.evaluate(false).log_likelihood ==
        Approx(cudp::phylo::evaluate_on_host<double>(p.plan, p.data, p.model).log_likelihood).epsilon(1e-12));
}
