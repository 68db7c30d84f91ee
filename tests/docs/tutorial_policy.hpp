#pragma once
// The tutorial's recurrence as a program of one's own holds it: under a name of its own. (The library compiles
// vector kernels for recurrences::Levenshtein itself, so using that type would not show that a policy of one's own
// gets them.) Its code is levenshtein.hpp's, the code of the tutorial's Steps 1 to 10.
#include <cudp/recurrences/levenshtein.hpp>

namespace mine {

template <class L>
struct Edit : cudp::recurrences::Levenshtein<L> {
  using cudp::recurrences::Levenshtein<L>::Levenshtein;
};

// The same again, for which no translation unit of the test compiles kernels.
template <class L>
struct EditWithoutKernels : cudp::recurrences::Levenshtein<L> {
  using cudp::recurrences::Levenshtein<L>::Levenshtein;
};

}  // namespace mine
