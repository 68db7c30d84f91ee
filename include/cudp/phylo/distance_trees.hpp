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

// Neighbour-joining's totals are compared to the last bit, so no multiply-add may be fused.
#if defined(__clang__)
#define CUDP_NJ_NO_FP_CONTRACT _Pragma("clang fp contract(off)")
#else
#define CUDP_NJ_NO_FP_CONTRACT
#endif
// (nvcc's front end refuses GCC's optimize pragmas; GCC fuses nothing on x86-64 without -mfma in any case.)
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

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
  // Row i starts at data() + i * size(). Writing through it may break the symmetry that set() keeps.
  const double* data() const { return d_.data(); }
  double* data() { return d_.data(); }

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

namespace detail {

// The search for ClustalW's pair without reading every total (after RapidNJ: Simonsen, Mailund and Pedersen 2008).
// Every node keeps a list of its distances, sorted, to the nodes older than itself (an input node is older than
// the input nodes after it; a joined node is newer than every node), so each pair of active nodes is in exactly one
// list. A list is read from its smallest distance up, and left once a bound on its totals exceeds the best total
// found: with d at least the list's distance and the other row sum at most the largest, every total of node i is
// at least min(((o * d + c) - r_max) - r(i), ((o * d + c) - r(i)) - r_max); rounding is monotone in each operand, so
// the bound holds for the computed totals too, and a tie with the best is never skipped. Pairs that pass are
// computed as ClustalW computes them and compared by (total, larger node, smaller node): the first minimum of its
// scan. The lists hold floats rounded down, so they take half the matrix; entries of nodes since joined or
// rebuilt are dropped as they are met.
struct NjCandidate {
  double value = 0;
  int high = -1, low = -1;  // the pair's nodes, high > low; high < 0: none yet

  // Whether (value, high, low) comes first in ClustalW's scan; a NaN never does, nor anything not below the
  // start value.
  bool beaten_by(double v, int h, int l) const {
    if (v < value) return true;
    return v == value && high >= 0 && (h < high || (h == high && l < low));
  }
};

class NjSearch {
 public:
  NjSearch(const DistanceMatrix& d, std::vector<double>& r)
      : n_(d.size()), w_(d.data()), r_(r), lists_(n_), start_(n_, 0), born_(n_), alive_(n_, 1) {
    for (std::size_t i = 0; i < n_; ++i) {
      born_[i] = static_cast<long long>(i);
      auto& list = lists_[i];
      list.reserve(i);
      for (std::size_t j = 0; j < i; ++j) add(list, w_[i * n_ + j], static_cast<int>(j));
      sort(list);
    }
  }

  NjCandidate search(const std::vector<int>& active, double others, double c, double start) {
    CUDP_NJ_NO_FP_CONTRACT
    double r_max = -HUGE_VAL;
    for (const int j : active) {
      if (r_[static_cast<std::size_t>(j)] > r_max) r_max = r_[static_cast<std::size_t>(j)];
    }
    NjCandidate best;
    best.value = start;
    // Each list's first live pair, for a low best before the lists are read.
    for (const int i : active) {
      auto& list = lists_[static_cast<std::size_t>(i)];
      std::size_t& at = start_[static_cast<std::size_t>(i)];
      while (at < list.size() && !live(i, list[at].node)) ++at;
      if (at < list.size()) offer(i, list[at].node, others, c, best);
    }
    for (const int i : active) {
      auto& list = lists_[static_cast<std::size_t>(i)];
      const std::size_t first = start_[static_cast<std::size_t>(i)];
      const double ri = r_[static_cast<std::size_t>(i)];
      std::size_t kept = first, k = first;
      for (; k < list.size(); ++k) {
        const Entry e = list[k];
        const double x = others * static_cast<double>(e.distance) + c;
        const double b1 = (x - r_max) - ri, b2 = (x - ri) - r_max;
        if ((b1 < b2 ? b1 : b2) > best.value) break;
        if (!live(i, e.node)) continue;
        list[kept++] = e;
        // The same bound with the pair's own row sums, before the distance itself is read.
        const auto low = static_cast<std::size_t>(i < e.node ? i : e.node);
        const auto high = static_cast<std::size_t>(i < e.node ? e.node : i);
        if (((x - r_[low]) - r_[high]) > best.value) continue;
        offer(i, e.node, others, c, best);
      }
      // The dropped entries' places go to the front, which is skipped from now on.
      if (kept < k) {
        std::move_backward(list.begin() + static_cast<std::ptrdiff_t>(first),
                           list.begin() + static_cast<std::ptrdiff_t>(kept),
                           list.begin() + static_cast<std::ptrdiff_t>(k));
        start_[static_cast<std::size_t>(i)] = k - (kept - first);
      }
    }
    return best;
  }

  // After a join into `kept` (cycle `cycle`): `gone`'s list is dropped and `kept`'s made anew over `active`.
  void joined(int kept, int gone, const std::vector<int>& active, int cycle) {
    alive_[static_cast<std::size_t>(gone)] = 0;
    std::vector<Entry>().swap(lists_[static_cast<std::size_t>(gone)]);
    if (kept == gone) return;
    born_[static_cast<std::size_t>(kept)] = static_cast<long long>(n_) + cycle;
    auto& list = lists_[static_cast<std::size_t>(kept)];
    list.clear();
    const double* row = w_ + static_cast<std::size_t>(kept) * n_;
    for (const int j : active) {
      if (j != kept) add(list, row[static_cast<std::size_t>(j)], j);
    }
    sort(list);
    start_[static_cast<std::size_t>(kept)] = 0;
  }

 private:
  struct Entry {
    float distance;  // at most the distance
    int node;
  };

  static void add(std::vector<Entry>& list, double d, int node) {
    if (d != d) return;  // a NaN total never wins
    float f = static_cast<float>(d);
    if (static_cast<double>(f) > d) f = std::nextafter(f, -HUGE_VALF);
    list.push_back({f, node});
  }
  static void sort(std::vector<Entry>& list) {
    std::sort(list.begin(), list.end(), [](const Entry& a, const Entry& b) { return a.distance < b.distance; });
  }
  // Whether the pair (i, j) belongs to i's list now.
  bool live(int i, int j) const {
    return alive_[static_cast<std::size_t>(j)] && born_[static_cast<std::size_t>(j)] < born_[static_cast<std::size_t>(i)];
  }
  // ClustalW's total of the pair, the smaller node's row sum taken first.
  void offer(int i, int j, double others, double c, NjCandidate& best) const {
    CUDP_NJ_NO_FP_CONTRACT
    const int high = i > j ? i : j, low = i > j ? j : i;
    const double total = ((others * w_[static_cast<std::size_t>(i) * n_ + static_cast<std::size_t>(j)] + c) -
                          r_[static_cast<std::size_t>(low)]) -
                         r_[static_cast<std::size_t>(high)];
    if (best.beaten_by(total, high, low)) best = {total, high, low};
  }

  std::size_t n_;
  const double* w_;
  const std::vector<double>& r_;            // by node: above + below
  std::vector<std::vector<Entry>> lists_;   // by node
  std::vector<std::size_t> start_;          // by node: where its list's live part starts
  std::vector<long long> born_;             // by node: the order of its list
  std::vector<char> alive_;
};

}  // namespace detail

// Neighbour-joining on at least 3 nodes; `d` is left as ClustalW leaves its matrix (rows of joined nodes zeroed,
// the new nodes' distances in the rows of their smaller index), which later ClustalW steps read. `d` must be
// symmetric, as DistanceMatrix::set keeps it.
inline NeighborJoiningTree neighbor_joining(DistanceMatrix& d) {
  CUDP_NJ_NO_FP_CONTRACT
  const int n = static_cast<int>(d.size());
  if (n < 3) throw std::invalid_argument("neighbor_joining: needs at least 3 nodes");
  const std::size_t un = d.size();
  double* w = d.data();
  const auto at = [&](int i, int j) { return w[static_cast<std::size_t>(i) * un + static_cast<std::size_t>(j)]; };
  const auto put = [&](int i, int j, double v) { d.set(static_cast<std::size_t>(i), static_cast<std::size_t>(j), v); };
  NeighborJoiningTree tree;
  std::vector<int> active(un);
  std::vector<double> av(un, 0.0);
  // Row sums split at the diagonal: below[j] = sum of d(i, j), i < j; above[j] = sum of d(j, i), i > j.
  std::vector<double> below(un, 0.0), above(un, 0.0), r(un, 0.0);
  std::vector<double> join(un, 0.0);
  for (int i = 0; i < n; ++i) {
    active[static_cast<std::size_t>(i)] = i;
    put(i, i, 0.0);
  }
  // By rows: d(i, j) = d(j, i), and the sums keep their order.
  for (int j = 0; j < n; ++j) {
    double sum = 0.0;
    for (int i = 0; i < j; ++i) sum = sum + at(j, i);
    below[static_cast<std::size_t>(j)] = sum;
    sum = 0.0;
    for (int i = j + 1; i < n; ++i) sum += at(j, i);
    above[static_cast<std::size_t>(j)] = sum;
  }
  detail::NjSearch search(d, r);
  double remaining = n;
  for (int cycle = 1; cycle <= n - 3; ++cycle) {
    double total_sum = 0.0;
    for (const int j : active) {
      total_sum += above[static_cast<std::size_t>(j)];
      r[static_cast<std::size_t>(j)] = above[static_cast<std::size_t>(j)] + below[static_cast<std::size_t>(j)];
    }
    const double others = remaining - 2.0;
    const detail::NjCandidate best = search.search(active, others, 2.0 * total_sum, 99999.0 * 2.0 * others);
    // No total below ClustalW's start value (NaN distances): node 0 is joined with itself, as before; once node 0
    // is gone there is nothing to do but fail.
    const int mini = best.high < 0 ? 0 : best.low, minj = best.high < 0 ? 0 : best.high;
    if (best.high < 0 && active.front() != 0) {
      throw std::invalid_argument("neighbor_joining: no pair to join (distances not finite or too large)");
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
    // Each node's sums change by its own two distances only, so one pass reads and writes them; the distances are
    // read from the two joined rows.
    const double* row_j = w + uj * un;
    const double* row_i = w + ui * un;
    for (const int j : active) {
      const auto uj2 = static_cast<std::size_t>(j);
      const double to_j = row_j[uj2];
      double to_i = 0.0;
      if (j < minj) {
        above[uj2] -= to_j;
      } else {
        below[uj2] -= to_j;
      }
      if (j < mini) {
        to_i = row_i[uj2];
        above[uj2] -= to_i;
      } else if (j > mini) {
        to_i = row_i[uj2];
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
    search.joined(mini, minj, active, cycle);
  }
  const int l1 = active[0], l2 = active[1], l3 = active[2];
  const double d12 = at(l1, l2), d13 = at(l1, l3), d23 = at(l2, l3);
  const double b1 = (d12 + d13 - d23) * 0.5;
  const double b2 = d12 - b1;
  const double b3 = d13 - b1;
  tree.last = {l1, l2, l3};
  tree.last_lengths = {detail::nj_branch(b1 - av[static_cast<std::size_t>(l1)]),
                       detail::nj_branch(b2 - av[static_cast<std::size_t>(l2)]),
                       detail::nj_branch(b3 - av[static_cast<std::size_t>(l3)])};
  // ClustalW's matrix at the end: every joined node's row and column zeroed, so only the last three remain.
  std::fill(w, w + un * un, 0.0);
  d.set(static_cast<std::size_t>(l1), static_cast<std::size_t>(l2), d12);
  d.set(static_cast<std::size_t>(l1), static_cast<std::size_t>(l3), d13);
  d.set(static_cast<std::size_t>(l2), static_cast<std::size_t>(l3), d23);
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

#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#pragma GCC pop_options
#endif
