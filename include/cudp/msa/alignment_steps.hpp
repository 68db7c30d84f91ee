#pragma once
// The order of ClustalW 2.1's progressive steps: one step per internal node of the rooted guide tree, children
// before parents, left subtree before right. A step assigns every sequence to side 1 (the node's left subtree),
// side 2 (its right subtree) or 0 (not involved).
#include <utility>
#include <vector>

#include "binary_guide_tree.hpp"

namespace cudp::msa {

using AlignmentStep = std::vector<int>;  // per sequence: 0, 1 or 2

namespace detail {

inline void mark_subtree(const BinaryGuideTree& tree, int node, std::vector<char>& inside) {
  std::vector<int> stack{node};
  while (!stack.empty()) {
    const int p = stack.back();
    stack.pop_back();
    if (tree.nodes[p].leaf) {
      inside[p] = 1;
      continue;
    }
    if (tree.nodes[p].left >= 0) stack.push_back(tree.nodes[p].left);
    if (tree.nodes[p].right >= 0) stack.push_back(tree.nodes[p].right);
  }
}

}  // namespace detail

inline std::vector<AlignmentStep> alignment_steps(const BinaryGuideTree& tree) {
  const std::size_t n = tree.leaf_of_sequence.size();
  std::vector<AlignmentStep> steps;
  if (n < 2) return steps;
  // Post-order without recursion: a node is emitted after both its subtrees.
  std::vector<std::pair<int, bool>> stack{{tree.root, false}};
  while (!stack.empty()) {
    auto [node, expanded] = stack.back();
    stack.pop_back();
    const GuideNode& g = tree.nodes[node];
    if (g.leaf) continue;
    if (!expanded) {
      stack.push_back({node, true});
      if (g.right >= 0) stack.push_back({g.right, false});
      if (g.left >= 0) stack.push_back({g.left, false});
      continue;
    }
    if (g.right < 0) continue;
    std::vector<char> left(tree.nodes.size(), 0), right(tree.nodes.size(), 0);
    if (g.left >= 0) detail::mark_subtree(tree, g.left, left);
    detail::mark_subtree(tree, g.right, right);
    AlignmentStep step(n, 0);
    for (std::size_t s = 0; s < n; ++s) {
      const int leaf = tree.leaf_of_sequence[s];
      step[s] = right[leaf] ? 2 : left[leaf] ? 1 : 0;
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace cudp::msa
