#pragma once
// A policy of the consumer's own: edit distance, the code of cudp's Levenshtein under a type of its own.
#include <cudp/recurrences/levenshtein.hpp>

namespace consumer {
template <class L>
struct Edit : cudp::recurrences::Levenshtein<L> {
  using cudp::recurrences::Levenshtein<L>::Levenshtein;
};
}  // namespace consumer
