#include "cudp/phylo/distance_trees.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

using cudp::phylo::DistanceMatrix;
using cudp::phylo::Tree;

namespace {

// Path lengths between the tips of `tree` (tips are nodes 0..n-1).
DistanceMatrix patristic(const Tree& tree, int n) {
  DistanceMatrix d(static_cast<std::size_t>(n));
  const auto to_root = [&](int node) {
    std::map<int, double> path;  // ancestor -> distance from node
    double sum = 0;
    for (int p = node; p >= 0; p = tree.nodes[static_cast<std::size_t>(p)].parent) {
      path[p] = sum;
      sum += tree.nodes[static_cast<std::size_t>(p)].length;
    }
    return path;
  };
  for (int i = 0; i < n; ++i) {
    const auto pi = to_root(i);
    for (int j = i + 1; j < n; ++j) {
      double best = 1e300;
      for (const auto& [node, dj] : to_root(j)) {
        const auto it = pi.find(node);
        if (it != pi.end()) best = std::min(best, it->second + dj);
      }
      d.set(static_cast<std::size_t>(i), static_cast<std::size_t>(j), best);
    }
  }
  return d;
}

// The splits (tip sets on one side of each inner edge, normalised to exclude tip 0) of an unrooted tree.
std::set<std::vector<int>> splits(const Tree& tree, int n) {
  std::set<std::vector<int>> result;
  std::vector<std::vector<int>> below(tree.nodes.size());
  for (const int node : tree.postorder()) {
    const auto& tn = tree.nodes[static_cast<std::size_t>(node)];
    if (tn.children.empty()) below[static_cast<std::size_t>(node)] = {node};
    for (const int c : tn.children) {
      auto& b = below[static_cast<std::size_t>(node)];
      b.insert(b.end(), below[static_cast<std::size_t>(c)].begin(), below[static_cast<std::size_t>(c)].end());
    }
    auto side = below[static_cast<std::size_t>(node)];
    std::sort(side.begin(), side.end());
    if (side.size() < 2 || static_cast<int>(side.size()) > n - 2) continue;
    if (side.front() == 0) {
      std::vector<int> other;
      for (int t = 0; t < n; ++t) {
        if (!std::binary_search(side.begin(), side.end(), t)) other.push_back(t);
      }
      side = other;
    }
    result.insert(side);
  }
  return result;
}

// A random binary tree over n tips with branch lengths in [0.05, 1): joins random pairs of clusters.
Tree random_tree(int n, std::mt19937& rng, bool ultrametric) {
  Tree tree;
  tree.nodes.resize(static_cast<std::size_t>(n));
  std::vector<int> open(static_cast<std::size_t>(n));
  std::vector<double> height(static_cast<std::size_t>(n), 0.0);
  for (int i = 0; i < n; ++i) open[static_cast<std::size_t>(i)] = i;
  std::uniform_real_distribution<double> length(0.05, 1.0);
  double top = 0;
  while (open.size() > 1) {
    std::shuffle(open.begin(), open.end(), rng);
    const int a = open.back();
    open.pop_back();
    const int b = open.back();
    open.pop_back();
    const int node = static_cast<int>(tree.nodes.size());
    tree.nodes.emplace_back();
    height.push_back(0);
    top = std::max({top, height[static_cast<std::size_t>(a)], height[static_cast<std::size_t>(b)]}) + length(rng);
    for (const int c : {a, b}) {
      auto& cn = tree.nodes[static_cast<std::size_t>(c)];
      cn.parent = node;
      cn.length = ultrametric ? top - height[static_cast<std::size_t>(c)] : length(rng);
      tree.nodes[static_cast<std::size_t>(node)].children.push_back(c);
    }
    height[static_cast<std::size_t>(node)] = top;
    open.push_back(node);
  }
  tree.root = open.front();
  return tree;
}

std::vector<std::string> tip_names(int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back("t" + std::to_string(i));
  return names;
}

}  // namespace

TEST_CASE("neighbour-joining recovers an additive tree: topology and path lengths", "[distance_trees]") {
  std::mt19937 rng(7);
  for (const int n : {3, 4, 5, 8, 13, 30}) {
    for (int rep = 0; rep < 5; ++rep) {
      const Tree truth = random_tree(n, rng, false);
      const DistanceMatrix d = patristic(truth, n);
      DistanceMatrix work = d;
      const Tree nj = cudp::phylo::to_tree(cudp::phylo::neighbor_joining(work), tip_names(n));
      REQUIRE(nj.tip_count() == n);
      CHECK(splits(nj, n) == splits(truth, n));
      const DistanceMatrix back = patristic(nj, n);
      for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) CHECK(back(i, j) == Approx(d(i, j)).margin(1e-9));
      }
    }
  }
}

TEST_CASE("neighbour-joining: ClustalW's node numbering, matrix and tiny branches", "[distance_trees]") {
  // Five tips, 0 and 1 much closer than any other pair: the first join is (0, 1) and the new node keeps number 0.
  DistanceMatrix d(5);
  const double rows[5][5] = {{0, 0.1, 0.7, 0.8, 0.9},
                             {0.1, 0, 0.7, 0.8, 0.9},
                             {0.7, 0.7, 0, 0.6, 0.7},
                             {0.8, 0.8, 0.6, 0, 0.5},
                             {0.9, 0.9, 0.7, 0.5, 0}};
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t j = i + 1; j < 5; ++j) d.set(i, j, rows[i][j]);
  }
  const auto nj = cudp::phylo::neighbor_joining(d);
  REQUIRE(nj.joins.size() == 2);
  CHECK(nj.joins[0].left == 0);
  CHECK(nj.joins[0].right == 1);
  CHECK(nj.joins[0].left_length == Approx(0.05));
  CHECK(nj.joins[0].right_length == Approx(0.05));
  for (const auto& j : nj.joins) CHECK(j.left < j.right);
  // ClustalW leaves the matrix with the joined nodes' rows zeroed and the new nodes' distances in the rows of the
  // numbers they keep; its later steps read that matrix.
  for (const auto& join : nj.joins) {
    for (std::size_t j = 0; j < 5; ++j) CHECK(d(static_cast<std::size_t>(join.right), j) == 0.0);
  }
  CHECK(d(static_cast<std::size_t>(nj.last[0]), static_cast<std::size_t>(nj.last[1])) > 0.0);
  // Identical sequences: zero distances give branch lengths that are exactly 0 (|b| < 1e-4 is zeroed).
  DistanceMatrix same(3);
  same.set(0, 2, 0.3);
  same.set(1, 2, 0.3);
  const auto three = cudp::phylo::neighbor_joining(same);
  CHECK(three.last_lengths[0] == 0.0);
  CHECK(three.last_lengths[1] == 0.0);
  CHECK(three.last_lengths[2] == Approx(0.3));
}

TEST_CASE("UPGMA recovers an ultrametric tree: clusters and heights", "[distance_trees]") {
  std::mt19937 rng(11);
  for (const int n : {2, 3, 5, 9, 20}) {
    for (int rep = 0; rep < 5; ++rep) {
      const Tree truth = random_tree(n, rng, true);
      const DistanceMatrix d = patristic(truth, n);
      const auto joins = cudp::phylo::upgma(d);
      REQUIRE(joins.size() == static_cast<std::size_t>(n - 1));
      const Tree tree = cudp::phylo::to_tree(joins, tip_names(n));
      CHECK(splits(tree, n) == splits(truth, n));
      const DistanceMatrix back = patristic(tree, n);
      for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) CHECK(back(i, j) == Approx(d(i, j)).margin(1e-9));
      }
      for (std::size_t k = 1; k < joins.size(); ++k) CHECK(joins[k].height >= joins[k - 1].height - 1e-12);
    }
  }
}

TEST_CASE("UPGMA: the earliest pair wins ties and the new cluster keeps the smaller number", "[distance_trees]") {
  DistanceMatrix d(4);
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = i + 1; j < 4; ++j) d.set(i, j, 1.0);
  }
  d.set(2, 3, 0.4);
  d.set(1, 3, 0.4);
  const auto joins = cudp::phylo::upgma(d);
  // Rows are searched in input order, each row's minimum is its first smallest entry: row 3 holds 0.4 at column 1.
  CHECK(joins[0].left == 1);
  CHECK(joins[0].right == 3);
  CHECK(joins[0].height == Approx(0.2));
  // The new cluster 1 is 0.7 from tip 2 ((1.0 + 0.4) / 2), its nearest.
  CHECK(joins[1].left == 1);
  CHECK(joins[1].right == 2);
  CHECK(joins[1].height == Approx(0.35));
}

TEST_CASE("distance trees refuse too few nodes", "[distance_trees]") {
  DistanceMatrix two(2);
  CHECK_THROWS_AS(cudp::phylo::neighbor_joining(two), std::invalid_argument);
  CHECK_THROWS_AS(cudp::phylo::upgma(DistanceMatrix(1)), std::invalid_argument);
}
