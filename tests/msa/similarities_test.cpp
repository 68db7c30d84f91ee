// The identities the progressive stage reads (similarities.hpp; TreeSimilarities in rooted_guide_tree.hpp): computed
// when asked, they must equal the matrices ClustalW holds, bit for bit, as rows and as means over a step's pairs in
// ClustalW's order, on guide trees of random and tie-rich distances, a tip shared by two names, and sides that do not
// meet at one node (which the tree source must sum pair by pair).
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cudp/msa/guide_tree.hpp"
#include "cudp/msa/progressive_alignment.hpp"
#include "cudp/msa/rooted_guide_tree.hpp"
#include "cudp/msa/similarities.hpp"

using namespace cudp::msa;

namespace {

// ClustalW's mean over the pairs across two sides, from its matrix.
double matrix_mean(const cudp::phylo::DistanceMatrix& s, const std::vector<int>& one, const std::vector<int>& two) {
  double sum = 0.0;
  int pairs = 0;
  for (const int i : one)
    for (const int j : two) {
      ++pairs;
      sum += s(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
    }
  return sum / static_cast<float>(pairs);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every row of `source` and the means over `sides` against the matrix `want`.
void check_against(const Similarities& source, const cudp::phylo::DistanceMatrix& want,
                   const std::vector<std::pair<std::vector<int>, std::vector<int>>>& sides) {
  REQUIRE(source.size() == want.size());
  std::vector<double> row;
  bool rows_same = true;
  for (std::size_t i = 0; i < want.size(); ++i) {
    source.row(i, row);
    REQUIRE(row.size() == want.size());
    for (std::size_t j = 0; j < want.size(); ++j) rows_same = rows_same && same_bits(row[j], want(i, j));
  }
  CHECK(rows_same);
  int differ = 0;
  for (const auto& [one, two] : sides) differ += !same_bits(source.mean(one, two), matrix_mean(want, one, two));
  CHECK(differ == 0);
}

// The sides of every step of the tree, both ways round; lone sequences against the rest; random disjoint subsets
// (which seldom meet at one node).
std::vector<std::pair<std::vector<int>, std::vector<int>>> sides_to_try(const RootedGuideTree& tree,
                                                                        std::mt19937& rng) {
  std::vector<std::pair<std::vector<int>, std::vector<int>>> out;
  const ProgressiveSteps steps = progressive_step_ranges(tree);
  std::vector<int> one, two;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    steps.sides(k, one, two);
    if (one.empty() || two.empty()) continue;
    out.emplace_back(one, two);
    out.emplace_back(two, one);
    // A step's sides with some sequences left out (as MAXDIV leaves them out) still meet at the node.
    std::vector<int> fewer;
    for (const int s : one)
      if (rng() % 3 != 0) fewer.push_back(s);
    if (!fewer.empty()) out.emplace_back(fewer, two);
  }
  const int n = static_cast<int>(tree.tip_of_sequence.size());
  std::vector<int> rest;
  for (int i = 1; i < n; ++i) rest.push_back(i);
  out.push_back({rest, {0}});
  out.push_back({{0}, rest});
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<int> a, b;
    for (int i = 0; i < n; ++i) {
      const auto r = rng() % 3;
      if (r == 0) a.push_back(i);
      if (r == 1) b.push_back(i);
    }
    if (!a.empty() && !b.empty()) out.emplace_back(a, b);
  }
  return out;
}

}  // namespace

TEST_CASE("tree similarities computed when asked equal ClustalW's matrix", "[msa]") {
  std::mt19937 rng(11);
  for (const int n : {3, 4, 7, 16, 45, 120}) {
    for (const int levels : {2, 6, 0}) {
      cudp::phylo::DistanceMatrix d(static_cast<std::size_t>(n));
      std::uniform_int_distribution<int> level(0, levels);
      std::uniform_real_distribution<double> any(0.0, 1.4);
      for (std::size_t i = 0; i < d.size(); ++i)
        for (std::size_t j = i + 1; j < d.size(); ++j) d.set(i, j, levels > 0 ? level(rng) * 0.3 : any(rng));
      std::vector<std::string> names;
      for (int i = 0; i < n; ++i) names.push_back("s" + std::to_string(i));
      const std::string dnd = clustal_guide_tree(d, names).dnd;
      std::vector<std::string> twice = names;  // a name given twice matches the same tip
      if (n > 3) twice[2] = "S1";
      for (const auto& seqs : {names, twice}) {
        INFO("n = " << n << ", levels = " << levels << ", names " << (seqs == names ? "distinct" : "twice"));
        const RootedGuideTree tree = read_clustal_guide_tree(dnd, seqs);
        check_against(TreeSimilarities(tree), tree_similarities(tree), sides_to_try(tree, rng));
      }
    }
  }
  // Trees as users write them: rooted, without lengths, with lengths past 1 (clamped) and negative ones.
  for (const auto& [text, names] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"((x_y:0.1,Z:0.2):0.1,w:0.3);", {"X y", "z", "w"}},
           {"((a,b),(c,d));", {"a", "b", "c", "d"}},
           {"(((a:0.5,b:0.7):0.9,(c:0.1,(d:0.2,e:0.3):0.6):0.4):0.3,f:1.2,(g:0.8,h:-0.05):0.5);",
            {"h", "g", "f", "e", "d", "c", "b", "a"}}}) {
    INFO(text);
    const RootedGuideTree tree = read_clustal_guide_tree(text, names);
    check_against(TreeSimilarities(tree), tree_similarities(tree), sides_to_try(tree, rng));
  }
}

TEST_CASE("identities from distances computed when asked equal the matrix a UPGMA run reads", "[msa]") {
  std::mt19937 rng(3);
  for (const int n : {2, 5, 33}) {
    cudp::phylo::DistanceMatrix d(static_cast<std::size_t>(n));
    std::uniform_real_distribution<double> any(0.0, 1.0);
    for (std::size_t i = 0; i < d.size(); ++i)
      for (std::size_t j = i + 1; j < d.size(); ++j) d.set(i, j, any(rng));
    const auto want = similarities_from_distances(d);
    std::vector<std::pair<std::vector<int>, std::vector<int>>> sides;
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<int> a, b;
      for (int i = 0; i < n; ++i) (rng() % 2 ? a : b).push_back(i);
      if (!a.empty() && !b.empty()) sides.emplace_back(a, b);
    }
    check_against(MatrixSimilarities(d, MatrixSimilarities::Holds::distances), want, sides);
    check_against(MatrixSimilarities(want), want, sides);
  }
}
