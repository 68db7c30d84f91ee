// The random likelihood problems of random_tree_problem.hpp.
#include "random_tree_problem.hpp"

#include <algorithm>
#include <random>

#include "cudp/phylo/discrete_gamma.hpp"
#include "cudp/phylo/eigen_decomposition.hpp"
#include "cudp/phylo/optimize.hpp"

namespace cudp::test {

RandomTreeProblem make_random_tree_problem(std::uint32_t seed, int taxa, int patterns, int states, int categories,
                                           bool rooted, bool caterpillar, double mean_length, double invariant) {
  std::mt19937_64 rng(seed);
  RandomTreeProblem p;
  std::exponential_distribution<double> length(1.0 / mean_length);
  std::vector<int> open;
  for (int t = 0; t < taxa; ++t) {
    phylo::TreeNode tip;
    tip.label = "t" + std::to_string(t);
    tip.length = length(rng);
    tip.has_length = true;
    p.names.push_back(tip.label);
    open.push_back(static_cast<int>(p.tree.nodes.size()));
    p.tree.nodes.push_back(tip);
  }
  const std::size_t stop = rooted || taxa < 3 ? 1 : 3;
  while (open.size() > stop) {
    std::size_t a = open.size() - 1, b = open.size() - 2;
    if (!caterpillar) {
      a = std::uniform_int_distribution<std::size_t>(0, open.size() - 1)(rng);
      do b = std::uniform_int_distribution<std::size_t>(0, open.size() - 1)(rng);
      while (b == a);
    }
    phylo::TreeNode join;
    join.length = length(rng);
    join.has_length = true;
    join.children = {open[a], open[b]};
    const int id = static_cast<int>(p.tree.nodes.size());
    p.tree.nodes[static_cast<std::size_t>(open[a])].parent = id;
    p.tree.nodes[static_cast<std::size_t>(open[b])].parent = id;
    p.tree.nodes.push_back(join);
    open.erase(open.begin() + static_cast<std::ptrdiff_t>(std::max(a, b)));
    open.erase(open.begin() + static_cast<std::ptrdiff_t>(std::min(a, b)));
    open.push_back(id);
  }
  if (open.size() > 1) {
    phylo::TreeNode root;
    root.children = open;
    const int id = static_cast<int>(p.tree.nodes.size());
    for (const int c : open) p.tree.nodes[static_cast<std::size_t>(c)].parent = id;
    p.tree.nodes.push_back(root);
    p.tree.root = id;
  } else {
    p.tree.root = open[0];
    p.tree.nodes[static_cast<std::size_t>(open[0])].length = 0;
  }

  const phylo::CharacterCoding& coding = coding_for(states);
  const int codes = coding.code_count();
  p.data.taxa = taxa;
  p.data.patterns = patterns;
  p.data.codes.resize(static_cast<std::size_t>(taxa) * static_cast<std::size_t>(patterns));
  std::uniform_int_distribution<int> state(0, states - 1), any_code(0, codes - 1);
  std::uniform_real_distribution<double> unit(0, 1);
  for (auto& c : p.data.codes) c = static_cast<std::uint8_t>(unit(rng) < 0.05 ? any_code(rng) : state(rng));
  p.data.weights.resize(static_cast<std::size_t>(patterns));
  for (auto& w : p.data.weights) w = 1 + std::uniform_int_distribution<int>(0, 3)(rng);
  p.data.pattern_of_site.resize(static_cast<std::size_t>(patterns));
  for (int i = 0; i < patterns; ++i) p.data.pattern_of_site[static_cast<std::size_t>(i)] = i;
  p.plan = phylo::plan_traversal(p.tree, p.names, "random tree", "random data");

  auto& m = p.model;
  m.coding = &coding;
  m.model.states = states;
  m.model.exchangeabilities.assign(static_cast<std::size_t>(states * states), 1.0);
  for (int i = 0; i < states; ++i)
    for (int j = i + 1; j < states; ++j) {
      const double r = 0.2 + 4 * unit(rng);
      m.model.exchangeabilities[static_cast<std::size_t>(i * states + j)] = r;
      m.model.exchangeabilities[static_cast<std::size_t>(j * states + i)] = r;
    }
  double total = 0;
  for (int s = 0; s < states; ++s) {
    m.model.frequencies.push_back(0.5 + unit(rng));
    total += m.model.frequencies.back();
  }
  for (double& f : m.model.frequencies) f /= total;
  m.eigen = phylo::decompose(m.model);
  m.rates = phylo::make_rate_categories(categories > 1 ? categories : 0, 0.3 + 2 * unit(rng), invariant);
  return p;
}

phylo::LikelihoodModel model_for(const RandomTreeProblem& p, const std::string& model) {
  return phylo::make_likelihood_model(phylo::parse_model(model), *p.model.coding, p.data);
}

std::pair<double, double> optimize_problem(phylo::LikelihoodEngine& engine, phylo::TraversalPlan& plan,
                                           const RandomTreeProblem& p, const std::string& model) {
  const auto r = phylo::optimize(engine, plan, phylo::parse_model(model), *p.model.coding, p.data, {});
  return {r.initial_log_likelihood, r.log_likelihood};
}

phylo::SitePatterns simulate_along(const RandomTreeProblem& p, int sites, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  const int n = p.model.model.states;
  const auto& tree = p.tree;
  phylo::CharacterAlignment a;
  a.source = "simulated";
  a.names = p.names;
  a.rows.assign(p.names.size(), std::string(static_cast<std::size_t>(sites), 'A'));
  a.lines.assign(p.names.size(), 1);
  std::vector<int> taxon_of(tree.nodes.size(), -1);
  for (std::size_t t = 0; t < p.names.size(); ++t)
    for (const int v : tree.tips())
      if (tree.nodes[static_cast<std::size_t>(v)].label == p.names[t])
        taxon_of[static_cast<std::size_t>(v)] = static_cast<int>(t);
  std::vector<double> matrix(static_cast<std::size_t>(n * n));
  std::vector<int> order = tree.postorder();
  std::reverse(order.begin(), order.end());  // parents first
  for (int site = 0; site < sites; ++site) {
    const double rate =
        p.model.rates.rates[std::uniform_int_distribution<std::size_t>(0, p.model.rates.rates.size() - 1)(rng)];
    std::vector<int> state(tree.nodes.size());
    for (const int v : order) {
      const auto& node = tree.nodes[static_cast<std::size_t>(v)];
      std::vector<double> weights(p.model.model.frequencies);
      if (node.parent >= 0) {
        p.model.eigen.transition_matrix(node.length * rate, matrix.data());
        weights.assign(matrix.begin() + state[static_cast<std::size_t>(node.parent)] * n,
                       matrix.begin() + (state[static_cast<std::size_t>(node.parent)] + 1) * n);
      }
      state[static_cast<std::size_t>(v)] = std::discrete_distribution<int>(weights.begin(), weights.end())(rng);
      if (taxon_of[static_cast<std::size_t>(v)] >= 0)
        a.rows[static_cast<std::size_t>(taxon_of[static_cast<std::size_t>(v)])][static_cast<std::size_t>(site)] =
            p.model.coding->letters()[static_cast<std::size_t>(state[static_cast<std::size_t>(v)])];
    }
  }
  return phylo::compress_sites(a, *p.model.coding);
}

}  // namespace cudp::test
