#pragma once
// Random likelihood problems of any shape, as BEAGLE's synthetictest makes them: a random binary topology with
// random branch lengths, random tip codes (with gaps and, for DNA, ambiguity codes), a random reversible model with
// positive frequencies, and gamma rate categories. Shared by the GPU tests and the benchmark.
#include <cstdint>
#include <map>
#include <utility>
#include <string>
#include <vector>

#include "cudp/phylo/likelihood_engine.hpp"

namespace cudp::test {

struct RandomTreeProblem {
  phylo::Tree tree;
  phylo::SitePatterns data;
  phylo::TraversalPlan plan;
  phylo::LikelihoodModel model;
  std::vector<std::string> names;
};

// A coding for `states` states: the DNA and protein ones, or one with no letters (codes only) for other counts.
inline const phylo::CharacterCoding& coding_for(int states) {
  if (states == 4) return phylo::CharacterCoding::dna();
  if (states == 20) return phylo::CharacterCoding::protein();
  static std::map<int, phylo::CharacterCoding> others;
  return others.try_emplace(states, phylo::CharacterCoding::codes_only("codes", states)).first->second;
}

// taxa >= 2. rooted: the root has two children, else three. caterpillar: each join takes the last subtree.
// Defined in random_tree_problem.cpp, which compiles Eigen and Boost.Math for the model, so that CUDA translation
// units that use it need not.
RandomTreeProblem make_random_tree_problem(std::uint32_t seed, int taxa, int patterns, int states, int categories,
                                           bool rooted = false, bool caterpillar = false, double mean_length = 0.1,
                                           double invariant = 0.0);

// Data simulated along the problem's tree under its model (a rate category drawn per site), so that an optimum of
// the branch lengths lies near the tree's own and inside the bounds: random tips make long, flat branches.
phylo::SitePatterns simulate_along(const RandomTreeProblem& p, int sites, std::uint32_t seed);

// The model a string names (model_spec.hpp) for a problem's data, and phylo::optimize with default settings on any
// engine holding outer_buffer_count(plan) buffers: initial and final log-likelihoods. Here for the CUDA units,
// which do not compile Eigen and Boost.Math.
phylo::LikelihoodModel model_for(const RandomTreeProblem& p, const std::string& model);
std::pair<double, double> optimize_problem(phylo::LikelihoodEngine& engine, phylo::TraversalPlan& plan,
                                           const RandomTreeProblem& p, const std::string& model);

}  // namespace cudp::test
