#pragma once
// The log-likelihood of a tree: the traversal plan (which buffer each node is, the operations in post-order), the
// transition matrices of its edges, and the root sum, on the host or, through the same plan, on the device
// (device_tree_likelihood.cuh).
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "../config.hpp"
#include "../io/error.hpp"
#include "../recurrences/felsenstein.hpp"
#include "../tiers/pruning_buffers.hpp"
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
  std::vector<int> parent;                  // [buffer]; -1 for the root
  std::vector<std::vector<int>> children;  // [buffer], in the tree's order
};

// One input of a join: a buffer seen through the matrix of an edge (-1: as it is).
struct EdgeInput {
  int buffer, matrix;
};

// The operations that make `destination` the join of `inputs`: one for up to two, then one more per input, each
// folding into the destination (tiers/pruning_buffers.hpp). No inputs leaves the destination at the policy's unit.
inline void append_join(std::vector<tiers::PruningOperation>& operations, int destination,
                        const std::vector<EdgeInput>& inputs) {
  const auto at = [&](std::size_t k) { return k < inputs.size() ? inputs[k] : EdgeInput{-1, -1}; };
  operations.push_back({destination, {at(0).buffer, at(1).buffer}, {at(0).matrix, at(1).matrix}});
  for (std::size_t k = 2; k < inputs.size(); ++k)
    operations.push_back({destination, {destination, inputs[k].buffer}, {-1, inputs[k].matrix}});
}

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
    std::vector<EdgeInput> inputs;
    for (const int child : n.children) {
      const int below = plan.buffer_of_node[static_cast<std::size_t>(child)];
      inputs.push_back({below, below});
    }
    append_join(plan.operations, buffer, inputs);
  }
  plan.buffers = next;
  plan.parent.assign(static_cast<std::size_t>(plan.buffers), -1);
  plan.children.assign(static_cast<std::size_t>(plan.buffers), {});
  for (std::size_t node = 0; node < tree.nodes.size(); ++node) {
    const int buffer = plan.buffer_of_node[node];
    if (buffer < 0) continue;  // not reachable from the root
    for (const int child : tree.nodes[node].children) {
      const int below = plan.buffer_of_node[static_cast<std::size_t>(child)];
      plan.children[static_cast<std::size_t>(buffer)].push_back(below);
      plan.parent[static_cast<std::size_t>(below)] = buffer;
    }
  }
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

// Edge likelihoods need, for each edge, the partials of the rest of the tree seen from its upper end. An engine
// made with outer_buffer_count(plan) buffers holds them after the plan's own, node b's at outer_buffer(plan, b).
inline int outer_buffer(const TraversalPlan& plan, int buffer) { return plan.buffers + buffer; }
inline int outer_buffer_count(const TraversalPlan& plan) { return 2 * plan.buffers; }

// The operations that make a non-root buffer's outer partials from its parent's (through the parent's edge, unless
// the parent is the root) and its siblings' own (through theirs). Run in pre-order, after the post-order pass.
inline std::vector<tiers::PruningOperation> outer_operations(const TraversalPlan& plan, int buffer) {
  const int parent = plan.parent[static_cast<std::size_t>(buffer)];
  std::vector<EdgeInput> inputs;
  if (parent != plan.root) inputs.push_back({outer_buffer(plan, parent), parent});
  for (const int sibling : plan.children[static_cast<std::size_t>(parent)])
    if (sibling != buffer) inputs.push_back({sibling, sibling});
  std::vector<tiers::PruningOperation> operations;
  append_join(operations, outer_buffer(plan, buffer), inputs);
  return operations;
}

// outer_operations of every non-root buffer, parents before children: run after the post-order pass, they leave
// every edge's two sides ready.
inline std::vector<tiers::PruningOperation> preorder_operations(const TraversalPlan& plan) {
  std::vector<tiers::PruningOperation> operations;
  std::vector<int> stack(plan.children[static_cast<std::size_t>(plan.root)].rbegin(),
                         plan.children[static_cast<std::size_t>(plan.root)].rend());
  while (!stack.empty()) {
    const int buffer = stack.back();
    stack.pop_back();
    const auto mine = outer_operations(plan, buffer);
    operations.insert(operations.end(), mine.begin(), mine.end());
    const std::vector<int>& children = plan.children[static_cast<std::size_t>(buffer)];
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  return operations;
}

// The operations that remake an internal buffer's own partials from its children's.
inline std::vector<tiers::PruningOperation> node_operations(const TraversalPlan& plan, int buffer) {
  std::vector<EdgeInput> inputs;
  for (const int child : plan.children[static_cast<std::size_t>(buffer)]) inputs.push_back({child, child});
  std::vector<tiers::PruningOperation> operations;
  append_join(operations, buffer, inputs);
  return operations;
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

// Calls body(std::integral_constant<int, S>{}) for the state counts the library instantiates (4, 20, 61), so that
// each backend compiles its policy for those only; any other count is an error naming it.
template <class Body>
decltype(auto) with_states(int states, const char* who, Body&& body) {
  switch (states) {
    case 4:
      return body(std::integral_constant<int, 4>{});
    case 20:
      return body(std::integral_constant<int, 20>{});
    case 61:
      return body(std::integral_constant<int, 61>{});
    default:
      throw std::invalid_argument(std::string(who) + ": " + std::to_string(states) + " states are not built");
  }
}

}  // namespace cudp::phylo
