#pragma once
// The log-likelihood of a tree: the traversal plan (which buffer each node is, the operations in post-order), the
// transition matrices of its edges, and the root sum, on the host or, through the same plan, on the device
// (device_tree_likelihood.cuh).
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "../config.hpp"
#include "../io/error.hpp"
#include "../recurrences/felsenstein.hpp"
#include "../tiers/pruning_host.hpp"
#include "character_coding.hpp"
#include "newick.hpp"
#include "rate_categories.hpp"
#include "site_patterns.hpp"
#include "substitution_model.hpp"

namespace cudp::phylo {

// A tree laid onto the pruning tiers' buffers. Buffer t < tips is the alignment's taxon t (so the tip codes are the
// patterns' rows as they are); internal nodes follow in post-order, the root last. The edge above a node uses the
// matrix of the node's buffer number.
struct TraversalPlan {
  int tips = 0, buffers = 0, root = -1;
  std::vector<int> buffer_of_node;  // tree node -> buffer
  std::vector<double> edge_length;  // [buffer]; 0 for the root
  std::vector<tiers::PruningOperation> operations;
  std::vector<int> internal;  // internal buffers, whose exponents add up at the root
};

// Tips are matched to taxa by name; a taxon missing from either side is an error naming it.
inline TraversalPlan plan_traversal(const Tree& tree, const std::vector<std::string>& taxa,
                                    const std::string& tree_source, const std::string& alignment_source) {
  TraversalPlan plan;
  plan.tips = static_cast<int>(taxa.size());
  std::unordered_map<std::string, int> taxon_of;
  for (std::size_t t = 0; t < taxa.size(); ++t) taxon_of.emplace(taxa[t], static_cast<int>(t));
  plan.buffer_of_node.assign(tree.nodes.size(), -1);
  std::vector<bool> placed(taxa.size(), false);
  for (const int node : tree.tips()) {
    const std::string& name = tree.nodes[static_cast<std::size_t>(node)].label;
    const auto it = taxon_of.find(name);
    if (it == taxon_of.end())
      throw io::InputError(io::format_error(tree_source, "tip '" + name + "' is not a taxon of " + alignment_source));
    plan.buffer_of_node[static_cast<std::size_t>(node)] = it->second;
    placed[static_cast<std::size_t>(it->second)] = true;
  }
  for (std::size_t t = 0; t < taxa.size(); ++t)
    if (!placed[t])
      throw io::InputError(
          io::format_error(alignment_source, "taxon '" + taxa[t] + "' is not a tip of " + tree_source));
  int next = plan.tips;
  for (const int node : tree.postorder()) {
    const TreeNode& n = tree.nodes[static_cast<std::size_t>(node)];
    if (tree.is_tip(node)) continue;
    const int buffer = next++;
    plan.buffer_of_node[static_cast<std::size_t>(node)] = buffer;
    plan.internal.push_back(buffer);
    const auto child = [&](std::size_t k) { return plan.buffer_of_node[static_cast<std::size_t>(n.children[k])]; };
    plan.operations.push_back(
        {buffer, {child(0), n.children.size() > 1 ? child(1) : -1}, {child(0), n.children.size() > 1 ? child(1) : -1}});
    for (std::size_t k = 2; k < n.children.size(); ++k)
      plan.operations.push_back({buffer, {buffer, child(k)}, {-1, child(k)}});
  }
  plan.buffers = next;
  plan.root = tree.is_tip(tree.root) ? -1 : plan.buffer_of_node[static_cast<std::size_t>(tree.root)];
  if (plan.root < 0) throw io::InputError(io::format_error(tree_source, "a tree needs at least two tips"));
  plan.edge_length.assign(static_cast<std::size_t>(plan.buffers), 0.0);
  for (std::size_t node = 0; node < tree.nodes.size(); ++node) {
    if (static_cast<int>(node) == tree.root) continue;
    // A length left out is not a length of 0: say so rather than compute a likelihood nobody asked for.
    if (!tree.nodes[node].has_length) {
      const std::string& label = tree.nodes[node].label;
      throw io::InputError(io::format_error(
          tree_source, "the branch above " + (label.empty() ? std::string("an internal node") : "'" + label + "'") +
                           " has no length; every branch needs one (':0.1')"));
    }
    plan.edge_length[static_cast<std::size_t>(plan.buffer_of_node[node])] = tree.nodes[node].length;
  }
  return plan;
}

// Everything an evaluation reads, host or device.
struct LikelihoodModel {
  const CharacterCoding* coding = nullptr;
  SubstitutionModel model;
  EigenSystem eigen;
  RateCategories rates;
};

struct LikelihoodResult {
  double log_likelihood = 0;
  std::vector<double> pattern_log_likelihoods;  // [pattern], unweighted
};

// The transition matrices of every edge and category, [buffer][category][i][j], in double.
inline std::vector<double> transition_matrices(const TraversalPlan& plan, const LikelihoodModel& m) {
  const auto s2 = static_cast<std::size_t>(m.model.states * m.model.states);
  const std::size_t categories = m.rates.rates.size();
  std::vector<double> out(static_cast<std::size_t>(plan.buffers) * categories * s2);
  for (std::size_t b = 0; b < static_cast<std::size_t>(plan.buffers); ++b)
    for (std::size_t c = 0; c < categories; ++c)
      m.eigen.transition_matrix(plan.edge_length[b] * m.rates.rates[c], &out[(b * categories + c) * s2]);
  return out;
}

// The 0/1 rows of a coding's ambiguity sets, as tiers::PruningBuffers::code_sets reads them.
template <class Real>
std::vector<Real> code_set_rows(const CharacterCoding& coding) {
  std::vector<Real> rows;
  for (int code = coding.states() + 1; code < coding.code_count(); ++code)
    for (int s = 0; s < coding.states(); ++s) rows.push_back(((coding.mask(code) >> s) & 1) ? Real(1) : Real(0));
  return rows;
}

// The likelihood of each pattern from the root sum (scaled by 2^-exponent) and, with +I, the invariable part:
// p_inv x the frequency of the states every taxon allows. Worked in logs so that a deep tree's tiny variable part
// and the invariable part add without underflow. The host evaluation and the device's root kernel both call it.
CUDP_HD double pattern_log_likelihood(double variable_scaled, int exponent, double invariable) {
  const double log_variable = variable_scaled > 0 ? std::log(variable_scaled) + exponent * std::log(2.0) : -INFINITY;
  if (invariable <= 0) return log_variable;
  const double log_invariable = std::log(invariable);
  const double hi = log_variable > log_invariable ? log_variable : log_invariable;
  const double lo = log_variable > log_invariable ? log_invariable : log_variable;
  return hi + std::log1p(std::exp(lo - hi));
}

inline std::vector<double> invariable_parts(const SitePatterns& data, const LikelihoodModel& m) {
  std::vector<double> out(static_cast<std::size_t>(data.patterns), 0.0);
  if (m.rates.invariant <= 0) return out;
  for (int p = 0; p < data.patterns; ++p) {
    std::uint64_t common = m.coding->all_states();
    for (int t = 0; t < data.taxa; ++t) common &= m.coding->mask(data.code(t, p));
    double f = 0;
    for (int s = 0; s < m.model.states; ++s)
      if ((common >> s) & 1) f += m.model.frequencies[static_cast<std::size_t>(s)];
    out[static_cast<std::size_t>(p)] = m.rates.invariant * f;
  }
  return out;
}

inline LikelihoodResult sum_patterns(const SitePatterns& data, std::vector<double> pattern_log_likelihoods) {
  LikelihoodResult r;
  for (int p = 0; p < data.patterns; ++p)
    r.log_likelihood +=
        data.weights[static_cast<std::size_t>(p)] * pattern_log_likelihoods[static_cast<std::size_t>(p)];
  r.pattern_log_likelihoods = std::move(pattern_log_likelihoods);
  return r;
}

namespace detail {

template <class Real, int States>
LikelihoodResult evaluate_on_host(const TraversalPlan& plan, const SitePatterns& data, const LikelihoodModel& m,
                                  int threads) {
  using Policy = recurrences::FelsensteinPruning<Real, States>;
  const auto categories = static_cast<int>(m.rates.rates.size());
  const std::vector<double> matrices_double = transition_matrices(plan, m);
  const std::vector<Real> matrices(matrices_double.begin(), matrices_double.end());
  const std::vector<Real> sets = code_set_rows<Real>(*m.coding);
  const auto internal = static_cast<std::size_t>(plan.buffers - plan.tips);
  std::vector<Real> partials(internal * static_cast<std::size_t>(categories) * static_cast<std::size_t>(data.patterns) *
                             States);
  std::vector<int> exponents(internal * static_cast<std::size_t>(data.patterns));
  tiers::PruningBuffers<Real> b;
  b.patterns = data.patterns;
  b.categories = categories;
  b.states = States;
  b.tips = plan.tips;
  b.tip_codes = data.codes.data();
  b.code_sets = sets.data();
  b.partials = partials.data();
  b.exponents = exponents.data();
  b.matrices = matrices.data();
  tiers::prune_on_host<Policy>(b, plan.operations, threads);

  const std::vector<Real> frequencies(m.model.frequencies.begin(), m.model.frequencies.end());
  const std::vector<Real> weights(m.rates.weights.begin(), m.rates.weights.end());
  const std::vector<double> invariable = invariable_parts(data, m);
  std::vector<double> site(static_cast<std::size_t>(data.patterns));
  for (int p = 0; p < data.patterns; ++p) {
    const Real scaled = tiers::root_pattern<Policy>(b, plan.root, frequencies.data(), weights.data(), p);
    const int exponent = tiers::total_exponent(b, plan.internal.data(), static_cast<int>(plan.internal.size()), p);
    site[static_cast<std::size_t>(p)] =
        pattern_log_likelihood(static_cast<double>(scaled), exponent, invariable[static_cast<std::size_t>(p)]);
  }
  return sum_patterns(data, std::move(site));
}

}  // namespace detail

// Host evaluation in Real (double or float) precision, on `threads` threads (0: all).
template <class Real>
LikelihoodResult evaluate_on_host(const TraversalPlan& plan, const SitePatterns& data, const LikelihoodModel& m,
                                  int threads = 0) {
  switch (m.model.states) {
    case 4:
      return detail::evaluate_on_host<Real, 4>(plan, data, m, threads);
    case 20:
      return detail::evaluate_on_host<Real, 20>(plan, data, m, threads);
    case 61:
      return detail::evaluate_on_host<Real, 61>(plan, data, m, threads);
    default:
      throw std::invalid_argument("evaluate_on_host: " + std::to_string(m.model.states) + " states are not built");
  }
}

}  // namespace cudp::phylo
