// The device's tree likelihood (phylo/device_tree_likelihood.cuh, tiers/pruning.cuh) against the host tier
// (phylo/tree_likelihood.hpp), which the host tests check against a brute-force sum, with each pruning tier (by
// pattern; by state, 1 or 4 patterns per thread; by tile on CUDA cores with 1, 2 and 4 blocks per SM, on tensor
// cores with 1 and 2, and with one TF32 pass): 4, 20 and 61 states, double and single precision, random and
// caterpillar trees (deep enough that rescaling must happen), rooted and not, +G and +I, 1, 4 and 6 categories (more
// than a tile block holds side by side), gaps and ambiguity codes in the tips, and a second model on the same
// instance. Float is held to bounds in nats that a rescale off by one power of two exceeds.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cudp/phylo/device_tree_likelihood.cuh>
#include <cudp/phylo/host_tree_likelihood.hpp>
#include <string>
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

// Float bounds against the host's float, in nats. The host's float on these problems differs from its double by
// 1.0e-3 at most over a whole problem and 7.9e-5 at most in a pattern (edges: 5.3e-5); a device tier sums in its
// own order, and the tensor-core tile tier on the 1200-tip caterpillars (-1.1e6 and -2.4e6) differed from the
// host's float by 0.031 and 0.043 nats on an H100. A bound relative to the log-likelihood (2e-5 of -2.4e6 is 49
// nats) would hide a rescale off by one power of two, ln 2 = 0.69; these are 7 and 690 times below it.
constexpr double float_total_nats = 1e-1, float_pattern_nats = 1e-3;

// Every device tier against the host: double to `tolerance` relative, float to the bounds above. One TF32 pass
// rounds float inputs to 10-bit mantissas: its bound is 1e-2 relative, which finds a wrong index but not a lost
// power of two. The largest differences are printed for the record.
template <class Real>
void compare(const cudp::test::RandomTreeProblem& p, const std::string& what, double tolerance = 1e-12) {
  const auto want = cudp::phylo::evaluate_on_host<Real>(p.plan, p.data, p.model);
  using cudp::tiers::PruningTier;
  using cudp::tiers::PruningTuning;
  const bool single = sizeof(Real) == 4;
  double largest_total = 0, largest_pattern = 0, tf32_total = 0;
  for (const PruningTuning tuning :
       {PruningTuning{PruningTier::by_pattern, 1}, PruningTuning{PruningTier::by_state, 1},
        PruningTuning{PruningTier::by_state, 4}, PruningTuning{PruningTier::by_tile, 1, 1},
        PruningTuning{PruningTier::by_tile, 1, 2}, PruningTuning{PruningTier::by_tile, 1, 4},
        PruningTuning{PruningTier::by_tile_tensor, 1, 1},
        PruningTuning{PruningTier::by_tile_tensor, 1, 2}, PruningTuning{PruningTier::by_tile_tf32, 1, 1}}) {
    INFO("tier " << tier_name(tuning.tier) << ", " << tuning.patterns_per_thread << " pattern(s) per thread, "
                 << tuning.blocks_per_multiprocessor << " block(s) per SM");
    const bool tf32 = tuning.tier == PruningTier::by_tile_tf32 && single;
    cudp::phylo::DeviceTreeLikelihood<Real> device(p.plan, p.data, p.model, tuning);
    const auto got = device.evaluate();
    REQUIRE(std::isfinite(want.log_likelihood));
    const double total = std::abs(got.log_likelihood - want.log_likelihood);
    if (tf32) {
      tf32_total = std::max(tf32_total, total);
      CHECK(got.log_likelihood == Approx(want.log_likelihood).epsilon(1e-2));
      continue;
    }
    largest_total = std::max(largest_total, total);
    INFO("device " << got.log_likelihood << ", host " << want.log_likelihood);
    CHECK(total <= (single ? float_total_nats : tolerance * std::abs(want.log_likelihood)));
    REQUIRE(got.pattern_log_likelihoods.size() == want.pattern_log_likelihoods.size());
    int differ = 0;
    for (std::size_t i = 0; i < got.pattern_log_likelihoods.size(); ++i) {
      const double w = want.pattern_log_likelihoods[i], d = std::abs(got.pattern_log_likelihoods[i] - w);
      largest_pattern = std::max(largest_pattern, d);
      differ += !(d <= (single ? float_pattern_nats : tolerance * std::abs(w) + tolerance));
    }
    CHECK(differ == 0);
  }
  std::printf("%s, %s: device - host, largest over tiers: %.1e nats in total, %.1e in a pattern%s", what.c_str(),
              single ? "float" : "double", largest_total, largest_pattern, single ? "" : "\n");
  if (single) std::printf("; one TF32 pass %.1e in total\n", tf32_total);
}

}  // namespace

TEST_CASE("device likelihoods equal the host's on small problems", "[phylo][small]") {
  for (const int states : {4, 20, 61}) {
    INFO("states " << states);
    const auto p = cudp::test::make_random_tree_problem(1, 6, 37, states, 4, false, false, 0.2, 0.1);
    const std::string what = "small, " + std::to_string(states) + " states";
    compare<double>(p, what);
    compare<float>(p, what);
  }
  // Rescaling in float, and 6 categories: a tile block's groups take two turns.
  const auto p = cudp::test::make_random_tree_problem(2, 40, 37, 20, 6, true, true, 0.3);
  compare<double>(p, "40-tip caterpillar, 20 states, 6 categories");
  compare<float>(p, "40-tip caterpillar, 20 states, 6 categories");
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
        const std::string what = "random, " + std::to_string(states) + " states, " + std::to_string(categories) +
                                 " categories" + (rooted ? ", rooted" : "");
        compare<double>(p, what);
        compare<float>(p, what);
      }
}

TEST_CASE("device likelihoods: deep caterpillars rescale as the host does", "[phylo]") {
  for (const int states : {4, 20}) {
    const auto p = cudp::test::make_random_tree_problem(7, 1200, 257, states, 4, true, true, 0.3);
    const std::string what = "1200-tip caterpillar, " + std::to_string(states) + " states";
    compare<double>(p, what, 1e-11);
    compare<float>(p, what);
  }
  for (const int categories : {4, 6}) {
    INFO("61 states, categories " << categories);
    const auto p = cudp::test::make_random_tree_problem(8, 300, 65, 61, categories, true, true, 0.3, 0.1);
    const std::string what = "300-tip caterpillar, 61 states, " + std::to_string(categories) + " categories";
    compare<double>(p, what, 1e-11);
    compare<float>(p, what);
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

// Every edge's log-likelihood and derivatives on the device against the host's, after the pre-order pass: the
// log-likelihood in float to float_total_nats, all else to `tolerance` relative (a power of two lost in the
// partials leaves the derivatives of the logarithm as they are).
template <class Real>
void compare_edges(const cudp::test::RandomTreeProblem& p, double tolerance, const std::string& what) {
  namespace phylo = cudp::phylo;
  const int buffers = phylo::outer_buffer_count(p.plan);
  phylo::HostTreeLikelihood<Real> host(p.plan, p.data, p.model, buffers);
  phylo::DeviceTreeLikelihood<Real> device(p.plan, p.data, p.model, std::nullopt, buffers);
  for (phylo::LikelihoodEngine* engine : {static_cast<phylo::LikelihoodEngine*>(&host),
                                          static_cast<phylo::LikelihoodEngine*>(&device)}) {
    phylo::evaluate(*engine, p.plan, false);
    engine->prune(phylo::preorder_operations(p.plan));
  }
  double largest = 0;
  for (int b = 0; b < p.plan.buffers; ++b) {
    if (b == p.plan.root) continue;
    INFO("edge above buffer " << b);
    host.prepare_edge(b, phylo::outer_buffer(p.plan, b));
    device.prepare_edge(b, phylo::outer_buffer(p.plan, b));
    for (const double t : {1e-6, p.plan.edge_length[static_cast<std::size_t>(b)], 0.7}) {
      const phylo::EdgeDerivatives want = host.edge_derivatives(t), got = device.edge_derivatives(t);
      const double difference = std::abs(got.log_likelihood - want.log_likelihood);
      largest = std::max(largest, difference);
      INFO("device " << got.log_likelihood << ", host " << want.log_likelihood);
      CHECK(difference <= (sizeof(Real) == 4 ? float_total_nats : tolerance * std::abs(want.log_likelihood)));
      CHECK(got.first == Approx(want.first).epsilon(tolerance).margin(tolerance * std::abs(want.log_likelihood)));
      CHECK(got.second == Approx(want.second).epsilon(tolerance).margin(tolerance * std::abs(want.log_likelihood)));
    }
  }
  std::printf("edges, %s, %s: device - host, largest %.1e nats\n", what.c_str(), sizeof(Real) == 4 ? "float" : "double",
              largest);
}

}  // namespace

TEST_CASE("device edge likelihoods and derivatives equal the host's", "[phylo][edge]") {
  std::uint32_t seed = 400;
  for (const int states : {4, 20, 61}) {
    INFO("states " << states);
    const auto p = cudp::test::make_random_tree_problem(++seed, states == 61 ? 7 : 15, states == 61 ? 90 : 700,
                                                        states, 4, false, false, 0.2, 0.2);
    const std::string what = std::to_string(states) + " states";
    compare_edges<double>(p, 1e-10, what);
    compare_edges<float>(p, 1e-4, what);
  }
  // Rescaled partials on both sides of the edges.
  const auto deep = cudp::test::make_random_tree_problem(7, 300, 50, 4, 4, false, true, 1.0, 0.1);
  compare_edges<double>(deep, 1e-10, "300-tip caterpillar");
  compare_edges<float>(deep, 1e-4, "300-tip caterpillar");
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
