// The guide tree stage on several host threads (guide_tree.hpp, rooted_guide_tree.hpp): the rooted tree, the steps
// and the similarities must be those of one thread, on trees of tie-rich distances (whose rooting compares equal
// means) and on trees as users write them; the steps against ClustalW's recursive walk as first written here.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cudp/msa/guide_tree.hpp"
#include "cudp/msa/rooted_guide_tree.hpp"

using namespace cudp::msa;

namespace {

// ClustalW's groupSeqs: marks of the subtree at p in `below`, p's step saved after its children's.
void reference_walk(const RootedGuideTree& tree, int p, std::vector<int>& below, std::vector<std::vector<int>>& steps) {
  const std::size_t n = tree.tip_of_sequence.size();
  const GuideTreeNode& node = tree.nodes[static_cast<std::size_t>(p)];
  std::vector<int> marks(n, 0);
  if (node.left >= 0) {
    if (!tree.nodes[static_cast<std::size_t>(node.left)].leaf) {
      reference_walk(tree, node.left, below, steps);
      for (std::size_t i = 0; i < n; ++i) {
        if (below[i] != 0) marks[i] = 1;
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) marks[i] = tree.tip_of_sequence[i] == node.left ? 1 : 0;
    }
  }
  if (node.right >= 0) {
    if (!tree.nodes[static_cast<std::size_t>(node.right)].leaf) {
      reference_walk(tree, node.right, below, steps);
      for (std::size_t i = 0; i < n; ++i) {
        if (below[i] != 0) marks[i] = 2;
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        if (tree.tip_of_sequence[i] == node.right) {
          marks[i] = 2;
        } else if (marks[i] != 0) {
          marks[i] = 1;
        }
      }
    }
    steps.push_back(marks);
  }
  below = std::move(marks);
}

std::vector<std::vector<int>> reference_steps(const RootedGuideTree& tree) {
  std::vector<std::vector<int>> steps;
  if (tree.tip_of_sequence.size() < 2) return steps;
  std::vector<int> below(tree.tip_of_sequence.size(), 0);
  reference_walk(tree, tree.root, below, steps);
  return steps;
}

bool same_tree(const RootedGuideTree& a, const RootedGuideTree& b) {
  if (a.root != b.root || a.tip_of_sequence != b.tip_of_sequence || a.has_distances != b.has_distances ||
      a.nodes.size() != b.nodes.size()) {
    return false;
  }
  for (std::size_t k = 0; k < a.nodes.size(); ++k) {
    const GuideTreeNode &x = a.nodes[k], &y = b.nodes[k];
    if (x.parent != y.parent || x.left != y.left || x.right != y.right || x.leaf != y.leaf || x.order != y.order ||
        x.name != y.name || std::memcmp(&x.dist, &y.dist, sizeof x.dist) != 0) {
      return false;
    }
  }
  return true;
}

// The tree read on `threads` threads against one, and what is built on it.
void check_threads(const std::string& text, const std::vector<std::string>& names) {
  const RootedGuideTree one = read_clustal_guide_tree(text, names, "tree", 1);
  std::vector<std::pair<int, int>> far_one;
  const auto sim_one = tree_similarities(one, &far_one, 1);
  CHECK(progressive_steps(one) == reference_steps(one));
  for (const int threads : {2, 3, 8}) {
    INFO("threads = " << threads);
    const RootedGuideTree many = read_clustal_guide_tree(text, names, "tree", threads);
    CHECK(same_tree(many, one));
    CHECK(progressive_steps(many, threads) == reference_steps(one));
    std::vector<std::pair<int, int>> far;
    const auto sim = tree_similarities(many, &far, threads);
    CHECK(far == far_one);
    CHECK(std::memcmp(sim.cells().data(), sim_one.cells().data(), sizeof(double) * sim.cells().size()) == 0);
  }
}

}  // namespace

TEST_CASE("guide tree on threads: neighbour-joining trees of tie-rich distances", "[msa]") {
  std::mt19937 rng(5);
  for (const int n : {3, 4, 5, 9, 17, 40, 130, 300}) {
    for (const int levels : {1, 2, 5, 0}) {
      cudp::phylo::DistanceMatrix d(static_cast<std::size_t>(n));
      std::uniform_int_distribution<int> level(0, levels);
      std::uniform_real_distribution<double> any(0.0, 1.5);
      for (std::size_t i = 0; i < d.size(); ++i) {
        for (std::size_t j = i + 1; j < d.size(); ++j) d.set(i, j, levels > 0 ? level(rng) * 0.4 : any(rng));
      }
      std::vector<std::string> names;
      for (int i = 0; i < n; ++i) names.push_back("s" + std::to_string(i));
      INFO("n = " << n << ", levels = " << levels);
      const GuideTree guide = clustal_guide_tree(d, names);
      for (const int threads : {2, 5, 16}) CHECK(clustal_guide_tree(d, names, ClusterMethod::neighbor_joining,
                                                                    threads).dnd == guide.dnd);
      check_threads(guide.dnd, names);
      // A name given twice matches the same tip.
      std::vector<std::string> twice = names;
      if (n > 3) twice[1] = "S0";
      check_threads(guide.dnd, twice);
    }
  }
}

TEST_CASE("guide tree on threads: trees as users write them", "[msa]") {
  check_threads("((x_y:0.1,Z:0.2):0.1,w:0.3);", {"X y", "z", "w"});
  check_threads("((a,b),(c,d));", {"a", "b", "c", "d"});
  check_threads("(\n(\na:0.10000,\nb:-0.00200)\n:0.30000,\nc:0.40000,\n(\nd:0.20000,\ne:0.25000)\n:0.05000);\n",
                {"A", "b", "c", "d", "e"});
  check_threads("(((a:0.5,b:0.7):0.9,(c:0.1,(d:0.2,e:0.3):0.6):0.4):0.3,f:1.2,(g:0.8,h:0.05):0.5);",
                {"h", "g", "f", "e", "d", "c", "b", "a"});
  // Text no ClustalW writes fails on any number of threads.
  for (const int threads : {1, 4}) {
    CHECK_THROWS_AS(read_clustal_guide_tree("((a:0.71,b0.2a:0.1,((c:0.3,d:0.1):0.2,e(:0.1):0.05);",
                                            {"a", "b", "c", "d", "e"}, "tree", threads),
                    cudp::io::InputError);
  }
}
