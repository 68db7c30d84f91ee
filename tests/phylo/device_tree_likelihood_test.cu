// The device's tree likelihood (phylo/device_tree_likelihood.cuh, tiers/pruning.cuh) against the host tier
// (phylo/tree_likelihood.hpp), which the host tests check against a brute-force sum, with each pruning tier (by
// pattern; by state, 1 or 4 patterns per thread; by tile on CUDA cores, on tensor cores, and with one TF32 pass, one
// and two blocks per SM): 4, 20 and 61 states, double and single precision, random and caterpillar trees (deep enough
// that rescaling must happen), rooted and not, +G and +I, 1, 4 and 6 categories (more than a tile block holds side by
// side), gaps and ambiguity codes in the tips, and a second model on the same instance.
#include <catch2/catch.hpp>
#include <cmath>
#include <cudp/phylo/device_tree_likelihood.cuh>
#include <cudp/phylo/host_tree_likelihood.hpp>
#include <vector>

#include "../support/random_tree_problem.hpp"

namespace {

const char* tier_name(cudp::tiers::PruningTier tier) {
  switch (tier) {
    case cudp::tiers::PruningTier::by_pattern:
      return "by pattern";
    case cudp::tiers::PruningTier::by_state:
      return "by state";
    case cudp::tiers::PruningTier::by_tile:
      return "by tile";
    case cudp::tiers::PruningTier::by_tile_tensor:
      return "by tile, tensor cores";
    case cudp::tiers::PruningTier::by_tile_tf32:
      return "by tile, one TF32 pass";
  }
  return "?";
}

// Every device tier against the host. One TF32 pass rounds float inputs to 10-bit mantissas: its bound is looser,
// still far below what a wrong index or a missed rescale would give.
template <class Real>
void compare(const cudp::test::RandomTreeProblem& p, double tolerance) {
  const auto want = cudp::phylo::evaluate_on_host<Real>(p.plan, p.data, p.model);
  using cudp::tiers::PruningTier;
  using cudp::tiers::PruningTuning;
  for (const PruningTuning tuning :
       {PruningTuning{PruningTier::by_pattern, 1}, PruningTuning{PruningTier::by_state, 1},
        PruningTuning{PruningTier::by_state, 4}, PruningTuning{PruningTier::by_tile, 1, 1},
        PruningTuning{PruningTier::by_tile, 1, 2}, PruningTuning{PruningTier::by_tile_tensor, 1, 1},
        PruningTuning{PruningTier::by_tile_tensor, 1, 2}, PruningTuning{PruningTier::by_tile_tf32, 1, 1}}) {
    INFO("tier " << tier_name(tuning.tier) << ", " << tuning.patterns_per_thread << " pattern(s) per thread, "
                 << tuning.blocks_per_multiprocessor << " block(s) per SM");
    const double bound = tuning.tier == PruningTier::by_tile_tf32 && sizeof(Real) == 4 ? 1e-2 : tolerance;
    cudp::phylo::DeviceTreeLikelihood<Real> device(p.plan, p.data, p.model, tuning);
    const auto got = device.evaluate();
    REQUIRE(std::isfinite(want.log_likelihood));
    CHECK(got.log_likelihood == Approx(want.log_likelihood).epsilon(bound));
    REQUIRE(got.pattern_log_likelihoods.size() == want.pattern_log_likelihoods.size());
    int differ = 0;
    for (std::size_t i = 0; i < got.pattern_log_likelihoods.size(); ++i)
      differ += !(std::abs(got.pattern_log_likelihoods[i] - want.pattern_log_likelihoods[i]) <=
                  bound * std::abs(want.pattern_log_likelihoods[i]) + bound);
    CHECK(differ == 0);
  }
}

}  // namespace

TEST_CASE("device likelihoods equal the host's on small problems", "[phylo][small]") {
  for (const int states : {4, 20, 61}) {
    INFO("states " << states);
    const auto p = cudp::test::make_random_tree_problem(1, 6, 37, states, 4, false, false, 0.2, 0.1);
    compare<double>(p, 1e-12);
    compare<float>(p, 2e-5);
  }
  // Rescaling in float, and 6 categories: a tile block's groups take two turns.
  const auto p = cudp::test::make_random_tree_problem(2, 40, 37, 20, 6, true, true, 0.3);
  compare<double>(p, 1e-12);
  compare<float>(p, 2e-5);
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
  for (const int categories : {4, 6}) {
    INFO("61 states, categories " << categories);
    const auto p = cudp::test::make_random_tree_problem(8, 300, 65, 61, categories, true, true, 0.3, 0.1);
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

namespace {

// Every edge's log-likelihood and derivatives on the device against the host's, after the pre-order pass.
template <class Real>
void compare_edges(const cudp::test::RandomTreeProblem& p, double tolerance) {
  namespace phylo = cudp::phylo;
  const int buffers = phylo::outer_buffer_count(p.plan);
  phylo::HostTreeLikelihood<Real> host(p.plan, p.data, p.model, buffers);
  phylo::DeviceTreeLikelihood<Real> device(p.plan, p.data, p.model, std::nullopt, buffers);
  for (phylo::LikelihoodEngine* engine : {static_cast<phylo::LikelihoodEngine*>(&host),
                                          static_cast<phylo::LikelihoodEngine*>(&device)}) {
    phylo::evaluate(*engine, p.plan, false);
    engine->prune(phylo::preorder_operations(p.plan));
  }
  for (int b = 0; b < p.plan.buffers; ++b) {
    if (b == p.plan.root) continue;
    INFO("edge above buffer " << b);
    host.prepare_edge(b, phylo::outer_buffer(p.plan, b));
    device.prepare_edge(b, phylo::outer_buffer(p.plan, b));
    for (const double t : {1e-6, p.plan.edge_length[static_cast<std::size_t>(b)], 0.7}) {
      const phylo::EdgeDerivatives want = host.edge_derivatives(t), got = device.edge_derivatives(t);
      CHECK(got.log_likelihood == Approx(want.log_likelihood).epsilon(tolerance));
      CHECK(got.first == Approx(want.first).epsilon(tolerance).margin(tolerance * std::abs(want.log_likelihood)));
      CHECK(got.second == Approx(want.second).epsilon(tolerance).margin(tolerance * std::abs(want.log_likelihood)));
    }
  }
}

}  // namespace

TEST_CASE("device edge likelihoods and derivatives equal the host's", "[phylo][edge]") {
  std::uint32_t seed = 400;
  for (const int states : {4, 20, 61}) {
    INFO("states " << states);
    const auto p = cudp::test::make_random_tree_problem(++seed, states == 61 ? 7 : 15, states == 61 ? 90 : 700,
                                                        states, 4, false, false, 0.2, 0.2);
    compare_edges<double>(p, 1e-10);
    compare_edges<float>(p, 1e-4);
  }
  // Rescaled partials on both sides of the edges.
  compare_edges<double>(cudp::test::make_random_tree_problem(7, 300, 50, 4, 4, false, true, 1.0, 0.1), 1e-10);
}

TEST_CASE("optimisation on the device reaches the host's optimum", "[phylo][optimize]") {
  namespace phylo = cudp::phylo;
  auto p = cudp::test::make_random_tree_problem(17, 12, 10, 4, 4, false, false, 0.1, 0.0);
  p.data = cudp::test::simulate_along(p, 1000, 3);
  const phylo::LikelihoodModel start = cudp::test::model_for(p, "HKY+G4");
  phylo::TraversalPlan host_plan = p.plan, device_plan = p.plan;
  phylo::HostTreeLikelihood<double> host(host_plan, p.data, start, phylo::outer_buffer_count(host_plan));
  phylo::DeviceTreeLikelihood<double> device(device_plan, p.data, start, std::nullopt,
                                             phylo::outer_buffer_count(device_plan));
  const auto want = cudp::test::optimize_problem(host, host_plan, p, "HKY+G4");
  const auto got = cudp::test::optimize_problem(device, device_plan, p, "HKY+G4");
  CHECK(got.second == Approx(want.second).epsilon(1e-9));
  CHECK(got.second > got.first);
  // Lengths agree as far as the rounds' tolerance (a gain of 1e-4) determines them.
  for (std::size_t b = 0; b < host_plan.edge_length.size(); ++b)
    CHECK(device_plan.edge_length[b] == Approx(host_plan.edge_length[b]).epsilon(1e-3).margin(1e-4));
}
