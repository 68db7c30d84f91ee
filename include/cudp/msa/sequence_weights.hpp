#pragma once
// ClustalW 2.1's sequence weights from the guide tree: each sequence gets the sum, over the branches from its leaf
// to the root, of the branch length divided by the number of leaves sharing that branch, so that sequences in
// crowded clades count less. The weights are integers scaled to sum to about 1000 (each at least 1), truncated as
// ClustalW truncates them; with weights off, or a tree without lengths, every sequence gets 1000 / n.
#include <tuple>
#include <vector>

#include "../phylo/distance_trees.hpp"
#include "rooted_guide_tree.hpp"

namespace cudp::msa {

// The weights' intended sum: ClustalW's build for Unix uses 1000 (its Windows and Mac builds 100).
inline constexpr int clustal_weight_scale = 1000;

// The raw weight of one leaf: (int)(100 * sum of length / leaf count), accumulated in float from the leaf up.
inline int raw_tree_weight(const RootedGuideTree& tree, int leaf) {
  float weight = 0.0f;
  for (int p = leaf; tree.nodes[static_cast<std::size_t>(p)].parent >= 0;
       p = tree.nodes[static_cast<std::size_t>(p)].parent) {
    const GuideTreeNode& node = tree.nodes[static_cast<std::size_t>(p)];
    weight += node.dist / static_cast<float>(node.order);
  }
  weight = static_cast<float>(weight * 100.0);
  return static_cast<int>(weight);
}

// Scales integer weights to sum to about `clustal_weight_scale`, none below 1; all-zero weights become equal.
inline void normalise_weights(std::vector<int>& weights) {
  long long sum = 0;
  for (const int w : weights) sum += w;
  if (sum == 0) {
    for (int& w : weights) w = 1;
    sum = static_cast<long long>(weights.size());
  }
  for (int& w : weights) {
    w = static_cast<int>(static_cast<long long>(w) * clustal_weight_scale / sum);
    if (w < 1) w = 1;
  }
}

inline std::vector<int> equal_weights(std::size_t count) {
  int each = clustal_weight_scale / static_cast<int>(count);
  if (each < 1) each = 1;
  return std::vector<int>(count, each);
}

// The weights of a tree read back from a .dnd (rooted_guide_tree.hpp), by sequence.
inline std::vector<int> sequence_weights(const RootedGuideTree& tree, bool no_weights = false) {
  const std::size_t n = tree.tip_of_sequence.size();
  if (n < 2 || !tree.has_distances || no_weights) return equal_weights(n);
  std::vector<int> weights(n);
  for (std::size_t s = 0; s < n; ++s) weights[s] = raw_tree_weight(tree, tree.tip_of_sequence[s]);
  normalise_weights(weights);
  return weights;
}

// The weights of a UPGMA run (ClustalW builds them from its own UPGMA tree, not from a .dnd): each sequence gets
// the sum, over the internal nodes above it, of a node's height divided by its leaf count, accumulated from the
// root down in float. ClustalW's merge overwrites both children's heights with the parent's, so every internal node
// but the root counts its parent's height. `joins`: phylo::upgma's, whose joined cluster keeps the left number.
inline std::vector<int> upgma_sequence_weights(const std::vector<phylo::UpgmaJoin>& joins, std::size_t n,
                                               bool no_weights = false) {
  if (n < 2 || no_weights || joins.empty()) return equal_weights(n);
  // Internal node k is join k; children are leaves (-1 - sequence) or earlier joins.
  struct Internal {
    int left, right, leaves;
    double height;
  };
  std::vector<Internal> nodes;
  std::vector<int> cluster_node(n), cluster_size(n, 1);
  for (std::size_t i = 0; i < n; ++i) cluster_node[i] = -1 - static_cast<int>(i);
  for (const phylo::UpgmaJoin& j : joins) {
    const std::size_t l = static_cast<std::size_t>(j.left), r = static_cast<std::size_t>(j.right);
    cluster_size[l] += cluster_size[r];
    nodes.push_back({cluster_node[l], cluster_node[r], cluster_size[l], j.height});
    cluster_node[l] = static_cast<int>(nodes.size()) - 1;
  }
  std::vector<float> raw(n, 0.0f);
  // Depth-first from the root: (node, weight so far, the height this node counts).
  std::vector<std::tuple<int, float, double>> stack{{static_cast<int>(nodes.size()) - 1, 0.0f, nodes.back().height}};
  while (!stack.empty()) {
    const auto [node, so_far, height] = stack.back();
    stack.pop_back();
    if (node < 0) {
      raw[static_cast<std::size_t>(-1 - node)] = so_far;
      continue;
    }
    const Internal& t = nodes[static_cast<std::size_t>(node)];
    const float w = static_cast<float>(so_far + height / t.leaves);
    stack.emplace_back(t.right, w, t.height);
    stack.emplace_back(t.left, w, t.height);
  }
  std::vector<int> weights(n);
  for (std::size_t i = 0; i < n; ++i) weights[i] = static_cast<int>(raw[i] * 100);
  normalise_weights(weights);
  return weights;
}

}  // namespace cudp::msa
