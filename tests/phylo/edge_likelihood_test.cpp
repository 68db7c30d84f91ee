// Edge log-likelihoods and their derivatives (phylo/edge_likelihood.hpp through the host engine): every edge of a
// tree gives the root's log-likelihood, whatever the edge; the first and second derivatives equal central
// differences of the log-likelihood; deep trees (rescaled partials) and invariable sites included.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "../support/random_tree_problem.hpp"
#include "cudp/phylo/host_tree_likelihood.hpp"

namespace {

namespace phylo = cudp::phylo;

template <class Real>
void check_edges(const cudp::test::RandomTreeProblem& p, double tolerance) {
  phylo::HostTreeLikelihood<Real> engine(p.plan, p.data, p.model, phylo::outer_buffer_count(p.plan), 2);
  const double at_root = phylo::evaluate(engine, p.plan, false).log_likelihood;
  REQUIRE(std::isfinite(at_root));
  engine.prune(phylo::preorder_operations(p.plan));
  int checked = 0;
  for (int b = 0; b < p.plan.buffers; ++b) {
    if (b == p.plan.root) continue;
    INFO("edge above buffer " << b << (b < p.plan.tips ? " (a tip)" : ""));
    engine.prepare_edge(b, phylo::outer_buffer(p.plan, b));
    const double t = p.plan.edge_length[static_cast<std::size_t>(b)];
    const phylo::EdgeDerivatives d = engine.edge_derivatives(t);
    CHECK(d.log_likelihood == Approx(at_root).epsilon(tolerance));
    // Central differences, with a step that keeps the truncation error near 1e-8 of the derivatives.
    const double h = 1e-4 * std::max(t, 0.01);
    const double up = engine.edge_derivatives(t + h).log_likelihood;
    const double down = engine.edge_derivatives(t - h).log_likelihood;
    const double scale = std::abs(d.first) + std::abs(d.second) * h + 1;
    CHECK(std::abs((up - down) / (2 * h) - d.first) <= 1e-4 * scale);
    const double up1 = engine.edge_derivatives(t + h).first, down1 = engine.edge_derivatives(t - h).first;
    CHECK(std::abs((up1 - down1) / (2 * h) - d.second) <= 1e-4 * (std::abs(d.second) + 1));
    ++checked;
  }
  CHECK(checked == p.plan.buffers - 1);
}

}  // namespace

TEST_CASE("every edge gives the root's log-likelihood, and derivatives equal differences", "[phylo][edge]") {
  std::uint32_t seed = 300;
  for (const int states : {4, 20})
    for (const bool rooted : {false, true})
      for (const double invariant : {0.0, 0.3}) {
        INFO("states " << states << " rooted " << rooted << " invariant " << invariant);
        const auto p = cudp::test::make_random_tree_problem(++seed, 9, 200, states, 4, rooted, false, 0.2, invariant);
        check_edges<double>(p, 1e-12);
        check_edges<float>(p, 1e-5);
      }
}

TEST_CASE("edge likelihoods on a deep caterpillar, whose partials are rescaled", "[phylo][edge]") {
  // 400 tips with long branches: the partials fall far below 2^-256 without rescaling.
  const auto p = cudp::test::make_random_tree_problem(11, 400, 60, 4, 4, false, true, 1.0, 0.2);
  check_edges<double>(p, 1e-11);
}

TEST_CASE("edge likelihoods with 61 states and one category", "[phylo][edge]") {
  const auto p = cudp::test::make_random_tree_problem(12, 6, 40, 61, 1, false, false, 0.3);
  check_edges<double>(p, 1e-12);
}

TEST_CASE("unrooting keeps the likelihood and joins the root's two branches", "[phylo][edge]") {
  const auto p = cudp::test::make_random_tree_problem(13, 12, 300, 4, 4, true, false, 0.2);
  const phylo::Tree u = phylo::unrooted(p.tree);
  REQUIRE(u.nodes.size() + 1 == p.tree.nodes.size());
  CHECK(u.nodes[static_cast<std::size_t>(u.root)].children.size() == 3);
  const phylo::TraversalPlan plan = phylo::plan_traversal(u, p.names, "tree", "data");
  CHECK(phylo::evaluate_on_host<double>(plan, p.data, p.model).log_likelihood ==
        Approx(phylo::evaluate_on_host<double>(p.plan, p.data, p.model).log_likelihood).epsilon(1e-12));
  double before = 0, after = 0;
  for (const double l : p.plan.edge_length) before += l;
  for (const double l : plan.edge_length) after += l;
  CHECK(after == Approx(before).epsilon(1e-14));
  // A tree that is already unrooted, or of two tips, stays as it is.
  CHECK(phylo::unrooted(u).nodes.size() == u.nodes.size());
  const phylo::Tree pair = phylo::parse_newick("(a:0.1,b:0.2);", "pair");
  CHECK(phylo::unrooted(pair).nodes.size() == 3);
}
