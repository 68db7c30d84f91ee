#pragma once
// ClustalW 2.1's guide tree from the distance matrix (stage 2), and its .dnd file as clustalw writes it.
//
// Neighbour-joining (the default) writes the unrooted tree: the trichotomy at the top, every node's two children in
// the order of their smallest sequence number, each "(" and each child followed by a newline, branch lengths with 5
// decimals (negative ones too). UPGMA (-CLUSTERING=UPGMA) writes the rooted tree in join order, and every node's
// number is the height of the join above it (not a branch length; the root carries its own height), printed as C's
// "%g". Two sequences give one line, each at half their distance, in "%.5g" of a float.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../phylo/distance_trees.hpp"
#include "../phylo/newick.hpp"

namespace cudp::msa {

enum class ClusterMethod { neighbor_joining, upgma };

namespace detail {

inline std::string printf_double(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// A node of the unrooted tree below the trichotomy, as ClustalW's NJ writer nests it.
inline void append_nj_node(const phylo::Tree& tree, int node, std::string& out) {
  const phylo::TreeNode& n = tree.nodes[static_cast<std::size_t>(node)];
  if (n.children.empty()) {
    out += n.label;
    return;
  }
  if (n.children.size() != 2) throw std::invalid_argument("clustal_nj_dnd: inner nodes must have two children");
  out += "(\n";
  for (std::size_t k = 0; k < 2; ++k) {
    const int child = n.children[k];
    append_nj_node(tree, child, out);
    out += ':' + printf_double("%.5f", tree.nodes[static_cast<std::size_t>(child)].length);
    out += k == 0 ? ",\n" : ")\n";
  }
}

// The cluster as it was before a join: a tip (-1) or the join that last made it. `made[k]` holds both clusters'
// for join k, so the writer does not search the joins before each node.
inline std::vector<std::pair<int, int>> upgma_made(const std::vector<phylo::UpgmaJoin>& joins, std::size_t n) {
  for (const phylo::UpgmaJoin& j : joins) n = std::max(n, static_cast<std::size_t>(std::max(j.left, j.right)) + 1);
  std::vector<int> last(n, -1);
  std::vector<std::pair<int, int>> made(joins.size());
  for (std::size_t k = 0; k < joins.size(); ++k) {
    const phylo::UpgmaJoin& j = joins[k];
    made[k] = {last[static_cast<std::size_t>(j.left)], last[static_cast<std::size_t>(j.right)]};
    last[static_cast<std::size_t>(j.left)] = static_cast<int>(k);
  }
  return made;
}

inline void append_upgma_node(const std::vector<std::string>& names, const std::vector<phylo::UpgmaJoin>& joins,
                              const std::vector<std::pair<int, int>>& made_by, int made, int cluster, double height,
                              std::string& out) {
  if (made < 0) {
    out += names[static_cast<std::size_t>(cluster)] + ':' + printf_double("%g", height);
    return;
  }
  const phylo::UpgmaJoin& j = joins[static_cast<std::size_t>(made)];
  const auto& below = made_by[static_cast<std::size_t>(made)];
  out += "(\n";
  append_upgma_node(names, joins, made_by, below.first, j.left, j.height, out);
  out += ",\n";
  append_upgma_node(names, joins, made_by, below.second, j.right, j.height, out);
  out += "):" + printf_double("%g", height);
}

}  // namespace detail

// The one-line tree of two sequences at distance `distance`.
inline std::string clustal_pair_dnd(const std::string& name1, const std::string& name2, double distance) {
  const double half = static_cast<float>(distance / 2.0);
  const std::string length = detail::printf_double("%.5g", half);
  return "(" + name1 + ":" + length + "," + name2 + ":" + length + ");\n";
}

// The .dnd text of an unrooted neighbour-joining tree (phylo::to_tree of neighbor_joining's result).
inline std::string clustal_nj_dnd(const phylo::Tree& tree) {
  const phylo::TreeNode& root = tree.nodes[static_cast<std::size_t>(tree.root)];
  if (root.children.size() != 3) throw std::invalid_argument("clustal_nj_dnd: the root must be a trichotomy");
  std::string out = "(\n";
  for (std::size_t k = 0; k < 3; ++k) {
    const int child = root.children[k];
    detail::append_nj_node(tree, child, out);
    out += ':' + detail::printf_double("%.5f", tree.nodes[static_cast<std::size_t>(child)].length);
    out += k < 2 ? ",\n" : ")";
  }
  return out + ";\n";
}

// The .dnd text of UPGMA's joins over `names` (at least 3).
inline std::string clustal_upgma_dnd(const std::vector<std::string>& names,
                                     const std::vector<phylo::UpgmaJoin>& joins) {
  if (joins.empty()) throw std::invalid_argument("clustal_upgma_dnd: no joins");
  std::string out;
  const phylo::UpgmaJoin& top = joins.back();
  out += "(\n";
  const auto made = detail::upgma_made(joins, names.size());
  detail::append_upgma_node(names, joins, made, made.back().first, top.left, top.height, out);
  out += ",\n";
  detail::append_upgma_node(names, joins, made, made.back().second, top.right, top.height, out);
  out += "):" + detail::printf_double("%g", top.height);
  return out + ";\n";
}

// Stage 2 as clustalw runs it: the guide tree of distance matrix `d` and its .dnd text. Neighbour-joining leaves `d`
// as ClustalW leaves its matrix (see phylo::neighbor_joining), hence the copy. `threads` (0: all cores) share
// neighbour-joining's joins; the tree does not depend on them. `joins_done`, when given, counts neighbour-joining's
// joins (n - 3), for a progress display.
struct GuideTree {
  std::string dnd;
  phylo::DistanceMatrix matrix_after;      // the matrix after the tree was built
  std::vector<phylo::UpgmaJoin> upgma;     // UPGMA's joins (empty for neighbour-joining)
};

inline GuideTree clustal_guide_tree(phylo::DistanceMatrix d, const std::vector<std::string>& names,
                                    ClusterMethod method = ClusterMethod::neighbor_joining, int threads = 1,
                                    std::atomic<std::size_t>* joins_done = nullptr) {
  if (names.size() != d.size()) throw std::invalid_argument("clustal_guide_tree: one name per row needed");
  if (names.size() < 2) throw std::invalid_argument("clustal_guide_tree: needs at least two sequences");
  GuideTree result;
  if (names.size() == 2) {
    result.dnd = clustal_pair_dnd(names[0], names[1], d(0, 1));
  } else if (method == ClusterMethod::neighbor_joining) {
    result.dnd = clustal_nj_dnd(phylo::to_tree(phylo::neighbor_joining(d, threads, joins_done), names));
  } else {
    result.upgma = phylo::upgma(d);
    result.dnd = clustal_upgma_dnd(names, result.upgma);
  }
  result.matrix_after = std::move(d);
  return result;
}

}  // namespace cudp::msa
