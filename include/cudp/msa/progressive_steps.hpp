#pragma once
// The order of ClustalW's profile alignments, held in memory that grows with the sequences rather than with the
// steps times the sequences: the sequences listed so that those below any node of the guide tree are one range of
// the list (a depth-first order of the tips), and each step as the two ranges of its profiles.
// (progressive_steps in rooted_guide_tree.hpp builds it from the tree, or from UPGMA's joins.)
#include <algorithm>
#include <cstddef>
#include <vector>

namespace cudp::msa {

struct ProgressiveSteps {
  struct Sides {
    int first_lo = 0, first_hi = 0;    // the first profile's sequences: order[first_lo, first_hi)
    int second_lo = 0, second_hi = 0;  // the second's
  };
  std::size_t sequences = 0;
  std::vector<int> order;   // sequences, those below each node together
  std::vector<Sides> steps;

  std::size_t size() const { return steps.size(); }

  // Step k's sequences on each side, each in input order.
  void sides(std::size_t k, std::vector<int>& one, std::vector<int>& two) const {
    const Sides& s = steps[k];
    one.assign(order.begin() + s.first_lo, order.begin() + s.first_hi);
    two.assign(order.begin() + s.second_lo, order.begin() + s.second_hi);
    std::sort(one.begin(), one.end());
    std::sort(two.begin(), two.end());
  }

  // Step k as a mark per sequence: 1 or 2 for the two profiles, 0 elsewhere.
  std::vector<int> marks(std::size_t k) const {
    std::vector<int> out(sequences, 0);
    const Sides& s = steps[k];
    for (int r = s.first_lo; r < s.first_hi; ++r) out[static_cast<std::size_t>(order[static_cast<std::size_t>(r)])] = 1;
    for (int r = s.second_lo; r < s.second_hi; ++r)
      out[static_cast<std::size_t>(order[static_cast<std::size_t>(r)])] = 2;
    return out;
  }
};

}  // namespace cudp::msa
