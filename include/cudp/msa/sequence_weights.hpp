#pragma once
// ClustalW 2.1's sequence weights from the guide tree: each sequence gets the sum, over the branches from its leaf
// to the root, of the branch length divided by the number of leaves sharing that branch, so that sequences in
// crowded clades count less. The weights are integers scaled to sum to about 1000 (each at least 1), truncated as
// ClustalW truncates them; with weights off, or a tree without lengths, every sequence gets 1000 / n.
#include <vector>

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

}  // namespace cudp::msa
