#include "cudp/phylo/distance_trees.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
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

// ClustalW's neighbour-joining as first written here: every cycle computes every total in ClustalW's order. The
// library's search skips most of them; it must pick the same pairs and leave the same matrix. Unfused, as the
// library's.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("fp-contract=off")))
#endif
cudp::phylo::NeighborJoiningTree reference_neighbor_joining(DistanceMatrix& d) {
  CUDP_NJ_NO_FP_CONTRACT
  const int n = static_cast<int>(d.size());
  if (n < 3) throw std::invalid_argument("neighbor_joining: needs at least 3 nodes");
  const auto at = [&](int i, int j) { return d(static_cast<std::size_t>(i), static_cast<std::size_t>(j)); };
  const auto put = [&](int i, int j, double v) { d.set(static_cast<std::size_t>(i), static_cast<std::size_t>(j), v); };
  cudp::phylo::NeighborJoiningTree tree;
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
    tree.joins.push_back({mini, minj, cudp::phylo::detail::nj_branch(bi), cudp::phylo::detail::nj_branch(bj)});
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
  tree.last_lengths = {cudp::phylo::detail::nj_branch(b1 - av[static_cast<std::size_t>(l1)]),
                       cudp::phylo::detail::nj_branch(b2 - av[static_cast<std::size_t>(l2)]),
                       cudp::phylo::detail::nj_branch(b3 - av[static_cast<std::size_t>(l3)])};
  return tree;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// n x n distances drawn from `levels` + 1 values in [0, 1] (ties are common), or continuous ones for levels 0.
DistanceMatrix tie_rich_matrix(int n, int levels, std::mt19937& rng) {
  DistanceMatrix d(static_cast<std::size_t>(n));
  std::uniform_int_distribution<int> level(0, levels);
  std::uniform_real_distribution<double> any(0.0, 1.0);
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      const double v = levels > 0 ? level(rng) / static_cast<double>(levels) : any(rng);
      d.set(static_cast<std::size_t>(i), static_cast<std::size_t>(j), v);
    }
  }
  return d;
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

TEST_CASE("neighbour-joining picks ClustalW's pairs on tie-rich matrices, bit for bit", "[distance_trees]") {
  std::mt19937 rng(2024);
  // Distances from a few values tie often, so the first minimum in ClustalW's scan order decides; zeros give the
  // 1e-6 floor; continuous ones and additive ones check the arithmetic.
  // Past 1,024 nodes a joined node's list is sorted a part at a time as it is read.
  for (const int n : {3, 4, 5, 6, 7, 8, 10, 13, 17, 25, 40, 64, 100, 160, 300, 2100}) {
    for (const int levels : {1, 2, 3, 5, 20, 0}) {
      if (n > 1024 && levels != 3 && levels != 0) continue;
      DistanceMatrix d = tie_rich_matrix(n, levels, rng);
      if (levels == 0 && n % 2 == 0) d = patristic(random_tree(n, rng, false), n);
      DistanceMatrix fast = d, slow = d;
      const auto got = cudp::phylo::neighbor_joining(fast);
      const auto want = reference_neighbor_joining(slow);
      INFO("n = " << n << ", levels = " << levels);
      REQUIRE(got.joins.size() == want.joins.size());
      for (std::size_t k = 0; k < got.joins.size(); ++k) {
        INFO("join " << k);
        CHECK(got.joins[k].left == want.joins[k].left);
        CHECK(got.joins[k].right == want.joins[k].right);
        CHECK(same_bits(got.joins[k].left_length, want.joins[k].left_length));
        CHECK(same_bits(got.joins[k].right_length, want.joins[k].right_length));
      }
      CHECK(got.last == want.last);
      for (std::size_t k = 0; k < 3; ++k) CHECK(same_bits(got.last_lengths[k], want.last_lengths[k]));
      bool matrix_same = true;
      for (std::size_t i = 0; i < d.size(); ++i) {
        for (std::size_t j = 0; j < d.size(); ++j) matrix_same = matrix_same && same_bits(fast(i, j), slow(i, j));
      }
      CHECK(matrix_same);
    }
  }
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

TEST_CASE("neighbour-joining on threads: the same joins, lengths and matrix as on one", "[distance_trees]") {
  std::mt19937 rng(31);
  // Few distinct distances tie often, so the threads' bests often tie and only the merge's order tells them
  // apart; the team takes a thread per 16 nodes at most, so the sizes start at 64.
  for (const int n : {64, 65, 100, 161, 300, 513}) {
    for (const int levels : {1, 2, 3, 7, 0}) {
      DistanceMatrix d = tie_rich_matrix(n, levels, rng);
      DistanceMatrix one = d;
      const auto want = cudp::phylo::neighbor_joining(one, 1);
      for (const int threads : {2, 3, 4, 7, 16}) {
        INFO("n = " << n << ", levels = " << levels << ", threads = " << threads);
        DistanceMatrix many = d;
        const auto got = cudp::phylo::neighbor_joining(many, threads);
        REQUIRE(got.joins.size() == want.joins.size());
        bool same = got.last == want.last;
        for (std::size_t k = 0; k < got.joins.size(); ++k) {
          same = same && got.joins[k].left == want.joins[k].left && got.joins[k].right == want.joins[k].right &&
                 same_bits(got.joins[k].left_length, want.joins[k].left_length) &&
                 same_bits(got.joins[k].right_length, want.joins[k].right_length);
        }
        for (std::size_t k = 0; k < 3; ++k) same = same && same_bits(got.last_lengths[k], want.last_lengths[k]);
        CHECK(same);
        CHECK(std::memcmp(many.cells().data(), one.cells().data(), sizeof(double) * one.cells().size()) == 0);
      }
    }
  }
  // Unreadable distances: the same pairs, or the same failure.
  DistanceMatrix d(80);
  for (std::size_t i = 0; i < 80; ++i) {
    for (std::size_t j = i + 1; j < 80; ++j) d.set(i, j, (i * 7 + j * 3) % 11 == 0 ? std::nan("") : (i + j) % 3);
  }
  DistanceMatrix one = d, many = d;
  bool one_failed = false, many_failed = false;
  std::vector<std::pair<int, int>> one_pairs, many_pairs;
  try {
    for (const auto& j : cudp::phylo::neighbor_joining(one, 1).joins) one_pairs.emplace_back(j.left, j.right);
  } catch (const std::invalid_argument&) {
    one_failed = true;
  }
  try {
    for (const auto& j : cudp::phylo::neighbor_joining(many, 4).joins) many_pairs.emplace_back(j.left, j.right);
  } catch (const std::invalid_argument&) {
    many_failed = true;
  }
  CHECK(one_failed == many_failed);
  CHECK(one_pairs == many_pairs);
}
