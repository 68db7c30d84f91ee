// The progressive stage's steps held as ranges of one order of the sequences (progressive_steps.hpp): each step's
// sides as marks and as sorted lists must be those of ClustalW's marks, built here as ClustalW builds them from
// UPGMA's joins (cluster numbers rewritten at every join); guide_tree_threads_test checks the tree's against
// ClustalW's walk of the tree.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "cudp/msa/progressive_steps.hpp"
#include "cudp/msa/rooted_guide_tree.hpp"

using namespace cudp::msa;

namespace {

std::vector<std::vector<int>> reference_upgma_marks(const std::vector<cudp::phylo::UpgmaJoin>& joins, std::size_t n) {
  std::vector<std::vector<int>> steps;
  if (n < 3) return steps;
  std::vector<int> cluster(n);
  std::iota(cluster.begin(), cluster.end(), 0);
  for (const auto& j : joins) {
    std::vector<int> marks(n, 0);
    for (std::size_t i = 0; i < n; ++i) marks[i] = cluster[i] == j.left ? 1 : cluster[i] == j.right ? 2 : 0;
    for (std::size_t i = 0; i < n; ++i)
      if (cluster[i] == j.right) cluster[i] = j.left;
    steps.push_back(marks);
  }
  return steps;
}

// Random UPGMA-like joins: every join merges two live clusters into the smaller-numbered one's number or not.
std::vector<cudp::phylo::UpgmaJoin> random_joins(std::mt19937& rng, std::size_t n) {
  std::vector<int> live(n);
  std::iota(live.begin(), live.end(), 0);
  std::vector<cudp::phylo::UpgmaJoin> joins;
  while (live.size() > 1) {
    std::shuffle(live.begin(), live.end(), rng);
    const int a = live.back();
    live.pop_back();
    joins.push_back({live.back(), a, 0.1 * static_cast<double>(joins.size())});
  }
  return joins;
}

}  // namespace

TEST_CASE("UPGMA's steps as ranges are ClustalW's marks", "[msa]") {
  std::mt19937 rng(17);
  for (const std::size_t n : {3u, 4u, 9u, 40u, 257u}) {
    for (int trial = 0; trial < 5; ++trial) {
      const auto joins = random_joins(rng, n);
      const ProgressiveSteps steps = progressive_step_ranges(joins, n);
      const auto want = reference_upgma_marks(joins, n);
      REQUIRE(steps.size() == want.size());
      std::vector<int> sorted_order = steps.order;
      std::sort(sorted_order.begin(), sorted_order.end());
      std::vector<int> all(n);
      std::iota(all.begin(), all.end(), 0);
      CHECK(sorted_order == all);  // every sequence once
      int wrong = 0;
      std::vector<int> one, two;
      for (std::size_t k = 0; k < steps.size(); ++k) {
        wrong += steps.marks(k) != want[k];
        steps.sides(k, one, two);
        std::vector<int> want_one, want_two;
        for (std::size_t i = 0; i < n; ++i) {
          if (want[k][i] == 1) want_one.push_back(static_cast<int>(i));
          if (want[k][i] == 2) want_two.push_back(static_cast<int>(i));
        }
        wrong += one != want_one || two != want_two;
      }
      CHECK(wrong == 0);
      CHECK(progressive_steps(joins, n) == want);
    }
  }
  CHECK(progressive_step_ranges(std::vector<cudp::phylo::UpgmaJoin>{{0, 1, 0.1}}, 2).size() == 0);
  CHECK_THROWS_AS(progressive_step_ranges(std::vector<cudp::phylo::UpgmaJoin>{{0, 5, 0.1}, {0, 1, 0.2}}, 3),
                  std::invalid_argument);
}

TEST_CASE("a tree's steps as ranges: a tip named by two sequences holds both", "[msa]") {
  const RootedGuideTree tree = read_clustal_guide_tree("((a:0.1,b:0.2):0.1,(c:0.3,d:0.1):0.2);", {"a", "B", "b", "d"},
                                                       "tree");
  const ProgressiveSteps steps = progressive_step_ranges(tree);
  // Tip c has no sequence; "B" and "b" both sit on tip b.
  CHECK(progressive_steps(tree) == std::vector<std::vector<int>>{{1, 2, 2, 0}, {0, 0, 0, 2}, {1, 1, 1, 2}});
  std::vector<int> one, two;
  steps.sides(2, one, two);
  CHECK(one == std::vector<int>{0, 1, 2});
  CHECK(two == std::vector<int>{3});
}
