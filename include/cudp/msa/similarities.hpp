#pragma once
// The percent identities between sequences that ClustalW's progressive stage reads: to decide which sequences it
// delays (MAXDIV), to choose each step's substitution matrix (the mean identity across the step's two sides), and
// to weigh and order the delayed sequences. ClustalW holds them as an n x n matrix; the stage reads them as rows and
// as sums over a step's pairs, so a source may also compute them when asked (TreeSimilarities in
// rooted_guide_tree.hpp: from the guide tree's path lengths, no memory a pair), which is what lets the stage run on
// 100,000 sequences.
#include <cstddef>
#include <vector>

#include "../phylo/distance_trees.hpp"

namespace cudp::msa {

class Similarities {
 public:
  virtual ~Similarities() = default;
  virtual std::size_t size() const = 0;
  // out[j] = the identity of sequences i and j for every j (out[i] = 0); `out` is resized to size(). `threads` may
  // share a long row.
  virtual void row(std::size_t i, std::vector<double>& out, int threads = 1) const = 0;
  // ClustalW's mean identity over the pairs across two sides (each in input order, disjoint): summed in double in
  // the order `one` outer, `two` inner, divided by the pair count as a float.
  virtual double mean(const std::vector<int>& one, const std::vector<int>& two) const = 0;
};

// Identities read from a matrix (not owned): a matrix of identities (tree_similarities, similarities_from_distances),
// or pairwise distances in [0, 1] as ClustalW turns them into identities, 100 - 100 d (a UPGMA run's, which ClustalW
// takes from its distance matrix), computed when asked.
class MatrixSimilarities final : public Similarities {
 public:
  enum class Holds { identities, distances };
  explicit MatrixSimilarities(const phylo::DistanceMatrix& matrix, Holds holds = Holds::identities)
      : m_(matrix), distances_(holds == Holds::distances) {}
  std::size_t size() const override { return m_.size(); }
  void row(std::size_t i, std::vector<double>& out, int = 1) const override {
    out.resize(m_.size());
    for (std::size_t j = 0; j < m_.size(); ++j) out[j] = value(i, j);
  }
  double mean(const std::vector<int>& one, const std::vector<int>& two) const override {
    double sum = 0.0;
    int pairs = 0;
    for (const int i : one)
      for (const int j : two) {
        ++pairs;
        sum += value(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
      }
    return sum / static_cast<float>(pairs);
  }

 private:
  double value(std::size_t i, std::size_t j) const {
    if (!distances_) return m_(i, j);
    return i == j ? 0.0 : 100.0 - m_(i, j) * 100.0;
  }
  const phylo::DistanceMatrix& m_;
  bool distances_;
};

}  // namespace cudp::msa
