// Optimisation on a fixed topology (phylo/optimize.hpp) on the host engine: what an optimum must satisfy rather
// than numbers copied from a run. Every edge's derivative vanishes (or points past a bound); another pass gains
// nothing; the optimum does not depend on the starting lengths; each free model parameter is at a maximum of its
// own profile; parameters the model string gives stay as given. The comparison with IQ-TREE's optimum is in
// tests/oracle/phylo_vs_references.py.
#include "cudp/phylo/optimize.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "../support/random_tree_problem.hpp"
#include "cudp/phylo/host_tree_likelihood.hpp"

namespace {

namespace phylo = cudp::phylo;

// Every edge's first derivative is 0 at the optimum, or the edge sits at a bound it presses against.
void check_stationary(phylo::LikelihoodEngine& engine, const phylo::TraversalPlan& plan,
                      const phylo::OptimizeSettings& s) {
  phylo::evaluate(engine, plan, false);
  engine.prune(phylo::preorder_operations(plan));
  for (int b = 0; b < plan.buffers; ++b) {
    if (b == plan.root) continue;
    engine.prepare_edge(b, phylo::outer_buffer(plan, b));
    const double t = plan.edge_length[static_cast<std::size_t>(b)];
    const phylo::EdgeDerivatives d = engine.edge_derivatives(t);
    INFO("edge " << b << " length " << t << " derivative " << d.first << " second " << d.second);
    if (t <= s.min_length)
      CHECK(d.first <= 1e-3);
    else if (t >= s.max_length)
      CHECK(d.first >= -1e-3);
    else
      CHECK(std::abs(d.first) <= 1e-3 * std::max(1.0, std::abs(d.second) * t));
  }
}

}  // namespace

TEST_CASE("branch lengths: a stationary optimum, independent of the start", "[phylo][optimize]") {
  // One category too: there, a long branch's likelihood is flat enough that its slope at the upper bound can
  // have either sign, which must not pull an edge to the bound.
  const std::pair<int, const char*> cases[] = {{4, "GTR{1.5,3,0.7,1.2,4}+F{0.3,0.2,0.2,0.3}+G4{0.8}"},
                                               {4, "HKY{2.5}+F{0.3,0.2,0.2,0.3}"},
                                               {20, "Poisson+G4{0.8}"}};
  for (const auto& [states, model] : cases) {
    INFO("model " << model);
    const int categories = std::string(model).find("+G4") != std::string::npos ? 4 : 1;
    auto p = cudp::test::make_random_tree_problem(21, 14, 10, states, categories, false, false, 0.15, 0.0);
    p.data = cudp::test::simulate_along(p, 600, 5);
    phylo::ModelSpec spec = phylo::parse_model(model);
    p.model = phylo::make_likelihood_model(spec, *p.model.coding, p.data);
    phylo::OptimizeSettings s;
    s.model = false;
    phylo::TraversalPlan plan = p.plan;
    phylo::HostTreeLikelihood<double> engine(plan, p.data, p.model, phylo::outer_buffer_count(plan), 2);
    const auto r = phylo::optimize(engine, plan, spec, *p.model.coding, p.data, s);
    CHECK(r.log_likelihood > r.initial_log_likelihood);
    check_stationary(engine, plan, s);
    for (const double length : plan.edge_length) CHECK(length < 5);  // simulated with lengths near 0.15
    // Another pass gains nothing worth the name.
    const double again = phylo::optimize_branches_once(engine, plan, s);
    CHECK(again - r.log_likelihood < 1e-3);
    CHECK(again >= r.log_likelihood - 1e-9);
    // From every branch at 0.5 instead, the same optimum.
    phylo::TraversalPlan other = p.plan;
    for (double& l : other.edge_length) l = 0.5;
    phylo::HostTreeLikelihood<double> second(other, p.data, p.model, phylo::outer_buffer_count(other), 2);
    const auto r2 = phylo::optimize(second, other, spec, *p.model.coding, p.data, s);
    CHECK(r2.log_likelihood == Approx(r.log_likelihood).margin(1e-3));
    // Single precision reaches the same optimum.
    phylo::TraversalPlan single_plan = p.plan;
    phylo::HostTreeLikelihood<float> single(single_plan, p.data, p.model, phylo::outer_buffer_count(single_plan), 2);
    const auto r3 = phylo::optimize(single, single_plan, spec, *p.model.coding, p.data, s);
    CHECK(r3.log_likelihood == Approx(r.log_likelihood).epsilon(1e-5));
  }
}

TEST_CASE("model parameters: each free one at the top of its profile, given ones untouched", "[phylo][optimize]") {
  auto p = cudp::test::make_random_tree_problem(22, 10, 10, 4, 4, false, false, 0.2, 0.0);
  p.data = cudp::test::simulate_along(p, 800, 6);
  const phylo::ModelSpec spec = phylo::parse_model("HKY+FO+G4+I");
  phylo::TraversalPlan plan = p.plan;
  const phylo::LikelihoodModel start = phylo::make_likelihood_model(spec, *p.model.coding, p.data);
  phylo::HostTreeLikelihood<double> engine(plan, p.data, start, phylo::outer_buffer_count(plan), 2);
  phylo::OptimizeSettings s;
  const auto r = phylo::optimize(engine, plan, spec, *p.model.coding, p.data, s);
  REQUIRE(r.spec.base_parameters.size() == 1);
  REQUIRE(r.spec.alpha);
  REQUIRE(r.spec.invariant_proportion);
  CHECK(r.spec.frequencies == phylo::FrequencyChoice::given);
  CHECK(r.log_likelihood > r.initial_log_likelihood);
  // The written model reproduces the optimum.
  const phylo::ModelSpec written = phylo::parse_model(phylo::format_model(r.spec, r.model.model));
  phylo::HostTreeLikelihood<double> check(plan, p.data, phylo::make_likelihood_model(written, *p.model.coding, p.data));
  CHECK(phylo::evaluate(check, plan, false).log_likelihood == Approx(r.log_likelihood).epsilon(1e-8));
  // Nudging any parameter by 2% either way does not improve the likelihood.
  const auto lnl_with = [&](phylo::ModelSpec m) {
    phylo::HostTreeLikelihood<double> e(plan, p.data, phylo::make_likelihood_model(m, *p.model.coding, p.data));
    return phylo::evaluate(e, plan, false).log_likelihood;
  };
  for (const double factor : {0.98, 1.02}) {
    phylo::ModelSpec kappa = r.spec, alpha = r.spec, pinv = r.spec, freq = r.spec;
    kappa.base_parameters[0] *= factor;
    *alpha.alpha *= factor;
    *pinv.invariant_proportion *= factor;
    freq.given_frequencies = r.model.model.frequencies;
    freq.given_frequencies[0] *= factor;
    CHECK(lnl_with(kappa) <= r.log_likelihood + 1e-6);
    CHECK(lnl_with(alpha) <= r.log_likelihood + 1e-6);
    CHECK(lnl_with(pinv) <= r.log_likelihood + 1e-6);
    CHECK(lnl_with(freq) <= r.log_likelihood + 1e-6);
  }
  // What the string gives is not a free parameter.
  phylo::ModelSpec fixed = phylo::parse_model("HKY{3}+F+G4{0.5}+I{0.1}");
  CHECK(phylo::free_parameters(fixed, start.model).empty());
  phylo::ModelSpec gtr = phylo::parse_model("GTR+FQ+G4");
  CHECK(phylo::free_parameters(gtr, start.model).size() == 6);
}
