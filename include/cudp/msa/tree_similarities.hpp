#pragma once
// The percent identities ClustalW 2.1's progressive stage works with when it has a guide tree with lengths (every
// neighbour-joining run, and every -USETREE run): not the pairwise stage's distances but the path lengths through
// the rooted guide tree, clamped to [0.01, 1], as 100 - 100 d. They choose each step's matrix, delay divergent
// sequences (MAXDIV) and reweight the delayed ones. The path sums are float, as ClustalW's.
//
// A UPGMA run uses the pairwise distances themselves instead (similarities_from_distances), so the progressive
// stage takes this matrix as an input rather than computing it.
#include <vector>

#include "binary_guide_tree.hpp"

namespace cudp::msa {

// Symmetric n x n, row-major, percent identity; the diagonal is 0, as ClustalW leaves it.
struct SimilarityMatrix {
  std::size_t n = 0;
  std::vector<double> values;
  double operator()(std::size_t i, std::size_t j) const { return values[i * n + j]; }
  double& operator()(std::size_t i, std::size_t j) { return values[i * n + j]; }
};

inline double clamp_tree_distance(double d) {
  if (d < 0.01) return 0.01;
  if (d > 1.0) return 1.0;
  return d;
}

inline SimilarityMatrix tree_similarities(const BinaryGuideTree& tree) {
  SimilarityMatrix s;
  s.n = tree.leaf_of_sequence.size();
  s.values.assign(s.n * s.n, 0.0);
  for (std::size_t i = 0; i < s.n; ++i) {
    std::vector<int> path;
    std::vector<float> to_node;
    float dist = 0.0f;
    for (int p = tree.leaf_of_sequence[i]; p >= 0; p = tree.nodes[p].parent) {
      path.push_back(p);
      dist += tree.nodes[p].length;
      to_node.push_back(dist);
    }
    for (std::size_t j = 0; j < i; ++j) {
      int p = tree.leaf_of_sequence[j];
      float up = 0.0f;
      bool found = false;
      std::size_t meet = 0;
      while (!found && tree.nodes[p].parent >= 0) {
        for (std::size_t k = 0; k < path.size(); ++k)
          if (tree.nodes[p].parent == path[k]) {
            found = true;
            meet = k;
          }
        up += tree.nodes[p].length;
        p = tree.nodes[p].parent;
      }
      const float d = up + to_node[meet - 1];
      const double value = 100.0 - clamp_tree_distance(static_cast<double>(d)) * 100.0;
      s(i, j) = s(j, i) = value;
    }
  }
  return s;
}

// Distances in [0, 1] (a pairwise stage's) as ClustalW's similarities: 100 - 100 d, diagonal 0.
inline SimilarityMatrix similarities_from_distances(const std::vector<double>& distances, std::size_t n) {
  SimilarityMatrix s;
  s.n = n;
  s.values.assign(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j) s(i, j) = 100.0 - distances[i * n + j] * 100.0;
  return s;
}

}  // namespace cudp::msa
