#pragma once
// Trees from a distance matrix: neighbour-joining (Saitou and Nei) and UPGMA, each with ClustalW 2.1's arithmetic,
// so that a guide tree built here is the one clustalw builds, to the last printed digit.
//
// Neighbour-joining. Of the pairs (i, j) of active nodes, i < j, the one minimising
//   (n - 2) * d(i, j) + 2 * S - r(i) - r(j)
// is joined (S: the sum of all distances between active nodes, r: a node's row sum), the first in (j, i) order
// on ties. The row sums are updated in place after each join rather than recomputed, in ClustalW's order, because
// the comparison of nearly equal totals depends on that rounding. The new node takes the smaller index i; its distance
// to k is (d(i, k) + d(j, k)) / 2 (the branch lengths are subtracted later, through `av`, a node's half distance
// to its last join). Branch lengths below 1e-4 in magnitude become 0, so slightly negative ones survive; the last
// three nodes form the unrooted tree's trichotomy.
//
// UPGMA. ClustalW keeps, for every node, its smallest distance to a node before it in the input order, and joins the
// node whose remembered minimum is smallest (the earliest on ties) with the node that minimum points to. The
// remembered minima are updated lazily with a relative tolerance of 1e-14 rather than recomputed, so on
// nearly equal distances the pair joined may differ from a fresh search; that is kept, since it decides the tree.
// Distances of a joined node are the size-weighted means; a join's height is half its distance.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "newick.hpp"

namespace cudp::phylo {

// A symmetric matrix of n x n distances, row-major; the diagonal is 0 unless set.
class DistanceMatrix {
 public:
  DistanceMatrix() = default;
  explicit DistanceMatrix(std::size_t n) : n_(n), d_(n * n, 0.0) {}

  std::size_t size() const { return n_; }
  double operator()(std::size_t i, std::size_t j) const { return d_[i * n_ + j]; }
  // Sets both (i, j) and (j, i).
  void set(std::size_t i, std::size_t j, double value) { d_[i * n_ + j] = d_[j * n_ + i] = value; }

 private:
  std::size_t n_ = 0;
  std::vector<double> d_;
};

// One neighbour-joining step: nodes `left` < `right` joined; the new node is numbered `left`.
struct NeighborJoin {
  int left = 0;
  int right = 0;
  double left_length = 0;
  double right_length = 0;
};

// The joins in order, then the last three nodes (ascending) and their branches to the centre.
struct NeighborJoiningTree {
  std::vector<NeighborJoin> joins;
  std::array<int, 3> last{};
  std::array<double, 3> last_lengths{};
};

namespace detail {

// Zeroes tiny branch lengths, as ClustalW does.
inline double nj_branch(double length) { return std::fabs(length) < 0.0001 ? 0.0 : length; }

}  // namespace detail

// Neighbour-joining on at least 3 nodes; `d` is left as ClustalW leaves its matrix (rows of joined nodes zeroed,
// the new nodes' distances in the rows of their smaller index), which later ClustalW steps read.
inline NeighborJoiningTree neighbor_joining(DistanceMatrix& d) {
  const int n = static_cast<int>(d.size());
  if (n < 3) throw std::invalid_argument("neighbor_joining: needs at least 3 nodes");
  const auto at = [&](int i, int j) { return d(static_cast<std::size_t>(i), static_cast<std::size_t>(j)); };
  const auto put = [&](int i, int j, double v) { d.set(static_cast<std::size_t>(i), static_cast<std::size_t>(j), v); };
  NeighborJoiningTree tree;
  std::vector<int> active(static_cast<std::size_t>(n));
  std::vector<double> av(static_cast<std::size_t>(n), 0.0);
  // Row sums split at the diagonal: below[j] = sum of d(i, j), i < j; above[j] = sum of d(j, i), i > j.
  std::vector<double> below(static_cast<std::size_t>(n), 0.0), above(static_cast<std::size_t>(n), 0.0);
  std::vector<double> join(static_cast<std::size_t>(n), 0.0);
  for (int i = 0; i < n; ++i) {
    active[static_cast<std::size_t>(i)] = i;
    put(i, i, 0.0);
  }
  for (const int j : active) {
    double sum = 0.0;
    for (const int i : active) {
      if (i >= j) break;
      sum = sum + at(i, j);
    }
    below[static_cast<std::size_t>(j)] = sum;
    sum = 0.0;
    for (const int i : active) {
      if (i > j) sum += at(j, i);
    }
    above[static_cast<std::size_t>(j)] = sum;
  }
  double remaining = n;
  for (int cycle = 1; cycle <= n - 3; ++cycle) {
    double total_sum = 0.0;
    for (const int j : active) total_sum += above[static_cast<std::size_t>(j)];
    const double others = remaining - 2.0;
    double best = 99999.0 * 2.0 * others;
    int mini = 0, minj = 0;
    for (std::size_t b = 1; b < active.size(); ++b) {
      const int jj = active[b];
      for (std::size_t a = 0; a < b; ++a) {
        const int ii = active[a];
        const double ri = above[static_cast<std::size_t>(ii)] + below[static_cast<std::size_t>(ii)];
        const double rj = above[static_cast<std::size_t>(jj)] + below[static_cast<std::size_t>(jj)];
        const double total = others * at(ii, jj) + 2.0 * total_sum - ri - rj;
        if (total < best) {
          best = total;
          mini = ii;
          minj = jj;
        }
      }
    }
    const auto ui = static_cast<std::size_t>(mini), uj = static_cast<std::size_t>(minj);
    double dmin = at(mini, minj);
    const double dio = (above[ui] + below[ui] - dmin) / others;
    const double djo = (above[uj] + below[uj] - dmin) / others;
    double bi = (dmin + dio - djo) * 0.5;
    double bj = dmin - bi;
    bi = bi - av[ui];
    bj = bj - av[uj];
    tree.joins.push_back({mini, minj, detail::nj_branch(bi), detail::nj_branch(bj)});
    if (dmin <= 0.0) dmin = 0.000001;  // keeps av > 0, which marks a joined node
    av[ui] = dmin * 0.5;
    remaining = remaining - 1.0;
    active.erase(std::find(active.begin(), active.end(), minj));
    for (const int j : active) {
      const auto uj2 = static_cast<std::size_t>(j);
      double to_j = 0.0, to_i = 0.0;
      if (j < minj) {
        to_j = at(j, minj);
        above[uj2] -= to_j;
      } else if (j > minj) {
        to_j = at(minj, j);
        below[uj2] -= to_j;
      }
      if (j < mini) {
        to_i = at(j, mini);
        above[uj2] -= to_i;
      } else if (j > mini) {
        to_i = at(mini, j);
        below[uj2] -= to_i;
      }
      join[uj2] = (to_j + to_i) * 0.5;
    }
    for (const int j : active) {
      const auto uj2 = static_cast<std::size_t>(j);
      if (j < mini) {
        put(j, mini, join[uj2]);
        above[uj2] += join[uj2];
      } else if (j > mini) {
        put(mini, j, join[uj2]);
        below[uj2] += join[uj2];
      }
    }
    double sum = 0.0;
    auto it = active.begin();
    for (; it != active.end() && *it < mini; ++it) sum = sum + join[static_cast<std::size_t>(*it)];
    below[ui] = sum;
    if (it != active.end() && *it == mini) ++it;
    sum = 0.0;
    for (; it != active.end(); ++it) sum = sum + join[static_cast<std::size_t>(*it)];
    above[ui] = sum;
    above[uj] = below[uj] = 0.0;
    for (int j = 0; j < n; ++j) {
      put(minj, j, 0.0);
      join[static_cast<std::size_t>(j)] = 0.0;
    }
  }
  const int l1 = active[0], l2 = active[1], l3 = active[2];
  const double b1 = (at(l1, l2) + at(l1, l3) - at(l2, l3)) * 0.5;
  const double b2 = at(l1, l2) - b1;
  const double b3 = at(l1, l3) - b1;
  tree.last = {l1, l2, l3};
  tree.last_lengths = {detail::nj_branch(b1 - av[static_cast<std::size_t>(l1)]),
                       detail::nj_branch(b2 - av[static_cast<std::size_t>(l2)]),
                       detail::nj_branch(b3 - av[static_cast<std::size_t>(l3)])};
  return tree;
}

// One UPGMA step: clusters `left` and `right` (numbered by their first input node, left < right) joined at
// `height`; the new cluster keeps the number `left`.
struct UpgmaJoin {
  int left = 0;
  int right = 0;
  double height = 0;
};

namespace detail {

// ClustalW's UPGMA state: the lower triangle with its diagonal, row k (k entries) at k(k+1)/2, removed columns
// marked -1; per row the remembered minimum and where it is.
class UpgmaRows {
 public:
  explicit UpgmaRows(const DistanceMatrix& d) : n_(static_cast<int>(d.size())) {
    cells_.assign(static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_ + 1) / 2, 0.0);
    for (int k = 0; k < n_; ++k) {
      for (int j = 0; j < k; ++j) row(k)[j] = d(static_cast<std::size_t>(k), static_cast<std::size_t>(j));
    }
    min_.assign(static_cast<std::size_t>(n_), std::numeric_limits<double>::max());
    min_at_.assign(static_cast<std::size_t>(n_), -1);
    size_.assign(static_cast<std::size_t>(n_), 1);
    alive_.assign(static_cast<std::size_t>(n_), 1);
    for (int k = 1; k < n_; ++k) find_min(k);
  }

  std::vector<UpgmaJoin> run() {
    std::vector<UpgmaJoin> joins;
    for (int left_alive = n_; left_alive > 1; --left_alive) {
      int second = -1;
      double smallest = std::numeric_limits<double>::max();
      for (int k = next_alive(0); k >= 0; k = next_alive(k)) {
        if (min_[static_cast<std::size_t>(k)] < smallest) {
          smallest = min_[static_cast<std::size_t>(k)];
          second = k;
        }
      }
      const int first = min_at_[static_cast<std::size_t>(second)];
      join(first, second);
      joins.push_back({first, second, min_[static_cast<std::size_t>(second)] / 2.0});
      alive_[static_cast<std::size_t>(second)] = 0;
      size_[static_cast<std::size_t>(first)] += size_[static_cast<std::size_t>(second)];
    }
    return joins;
  }

 private:
  double* row(int k) { return cells_.data() + static_cast<std::size_t>(k) * static_cast<std::size_t>(k + 1) / 2; }
  // The next alive node after k, or -1.
  int next_alive(int k) const {
    for (int i = k + 1; i < n_; ++i) {
      if (alive_[static_cast<std::size_t>(i)]) return i;
    }
    return -1;
  }
  double mean(double a, double b) const { return (a * size1_ + b * size2_) / (size1_ + size2_); }

  // The first smallest non-removed entry of row k (entry 0, the first node's column, is never removed).
  void find_min(int k) {
    const double* r = row(k);
    int best = 0;
    for (int j = 1; j < k; ++j) {
      if (r[j] >= 0 && r[j] < r[best]) best = j;
    }
    min_[static_cast<std::size_t>(k)] = r[best];
    min_at_[static_cast<std::size_t>(k)] = best;
  }

  void join(int first, int second) {
    size1_ = size_[static_cast<std::size_t>(first)];
    size2_ = size_[static_cast<std::size_t>(second)];
    double* r1 = row(first);
    const double* r2 = row(second);
    int walk = 0;  // ClustalW walks the second row with one pointer through the next two updates
    if (first != 0) {
      r1[0] = mean(r1[0], r2[0]);
      int best = 0;
      for (int j = 1; j < first; ++j) {
        if (r1[j] >= 0) {
          r1[j] = mean(r1[j], r2[j]);
          if (r1[j] < r1[best]) best = j;
        }
      }
      min_[static_cast<std::size_t>(first)] = r1[best];
      min_at_[static_cast<std::size_t>(first)] = best;
      walk = first;
    }
    while (r2[walk] < 0) ++walk;
    for (int k = next_alive(first); k != second; k = next_alive(k)) {
      ++walk;
      while (r2[walk] < 0) ++walk;
      double& cell = row(k)[first];
      cell = mean(cell, r2[walk]);
      const auto uk = static_cast<std::size_t>(k);
      if (cell < min_[uk]) {
        min_[uk] = cell;
        min_at_[uk] = first;
      } else if (cell > min_[uk] && min_at_[uk] == first) {
        find_min(k);
      }
    }
    constexpr double tolerance = 1e-14;  // ClustalW's guard against 32/64-bit differences in the last bits
    for (int k = next_alive(second); k >= 0; k = next_alive(k)) {
      double* r = row(k);
      const auto uk = static_cast<std::size_t>(k);
      r[first] = mean(r[first], r[second]);
      const double cell = r[first];
      if (cell < min_[uk] && (min_[uk] - cell) / min_[uk] > tolerance) {
        min_[uk] = cell;
        min_at_[uk] = first;
      } else if ((cell > min_[uk] && (cell - min_[uk]) / cell > tolerance && min_at_[uk] == first) ||
                 min_at_[uk] == second) {
        r[second] = -1;
        find_min(k);
      } else {
        r[second] = -1;
      }
    }
  }

  int n_;
  std::vector<double> cells_;
  std::vector<double> min_;
  std::vector<int> min_at_;
  std::vector<int> size_;
  std::vector<char> alive_;
  double size1_ = 1, size2_ = 1;
};

}  // namespace detail

// UPGMA on at least 2 nodes; the joins in order.
inline std::vector<UpgmaJoin> upgma(const DistanceMatrix& d) {
  if (d.size() < 2) throw std::invalid_argument("upgma: needs at least 2 nodes");
  return detail::UpgmaRows(d).run();
}

// The neighbour-joining tree as an unrooted phylo::Tree: the root is the trichotomy; every node's children come in
// the order of their smallest tip number. Tips are labelled `names` (tip i is node i).
inline Tree to_tree(const NeighborJoiningTree& nj, const std::vector<std::string>& names) {
  Tree tree;
  const int n = static_cast<int>(names.size());
  tree.nodes.resize(static_cast<std::size_t>(n));
  std::vector<int> current(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    tree.nodes[static_cast<std::size_t>(i)].label = names[static_cast<std::size_t>(i)];
    current[static_cast<std::size_t>(i)] = i;
  }
  const auto attach = [&](int parent, int child, double length) {
    TreeNode& c = tree.nodes[static_cast<std::size_t>(child)];
    c.parent = parent;
    c.length = length;
    c.has_length = true;
    tree.nodes[static_cast<std::size_t>(parent)].children.push_back(child);
  };
  for (const NeighborJoin& j : nj.joins) {
    const int node = static_cast<int>(tree.nodes.size());
    tree.nodes.emplace_back();
    attach(node, current[static_cast<std::size_t>(j.left)], j.left_length);
    attach(node, current[static_cast<std::size_t>(j.right)], j.right_length);
    current[static_cast<std::size_t>(j.left)] = node;
  }
  tree.root = static_cast<int>(tree.nodes.size());
  tree.nodes.emplace_back();
  for (int k = 0; k < 3; ++k) {
    attach(tree.root, current[static_cast<std::size_t>(nj.last[static_cast<std::size_t>(k)])],
           nj.last_lengths[static_cast<std::size_t>(k)]);
  }
  return tree;
}

// The UPGMA tree as a rooted phylo::Tree with true branch lengths (parent height minus child height); children
// in join order (the earlier cluster first).
inline Tree to_tree(const std::vector<UpgmaJoin>& joins, const std::vector<std::string>& names) {
  Tree tree;
  const int n = static_cast<int>(names.size());
  tree.nodes.resize(static_cast<std::size_t>(n));
  std::vector<int> current(static_cast<std::size_t>(n));
  std::vector<double> height(static_cast<std::size_t>(n), 0.0);
  for (int i = 0; i < n; ++i) {
    tree.nodes[static_cast<std::size_t>(i)].label = names[static_cast<std::size_t>(i)];
    current[static_cast<std::size_t>(i)] = i;
  }
  tree.root = n == 1 ? 0 : -1;
  for (const UpgmaJoin& j : joins) {
    const int node = static_cast<int>(tree.nodes.size());
    tree.nodes.emplace_back();
    for (const int cluster : {j.left, j.right}) {
      const int child = current[static_cast<std::size_t>(cluster)];
      TreeNode& c = tree.nodes[static_cast<std::size_t>(child)];
      c.parent = node;
      c.length = j.height - height[static_cast<std::size_t>(cluster)];
      c.has_length = true;
      tree.nodes[static_cast<std::size_t>(node)].children.push_back(child);
    }
    current[static_cast<std::size_t>(j.left)] = node;
    height[static_cast<std::size_t>(j.left)] = j.height;
    tree.root = node;
  }
  return tree;
}

}  // namespace cudp::phylo
