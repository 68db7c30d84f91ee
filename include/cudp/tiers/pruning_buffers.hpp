#pragma once
// Where the pruning tiers find a traversal: an operation list over numbered buffers, as BEAGLE's callers describe
// one (destination, two children, the matrices of their edges). The same plain view serves the host tier and the
// device tier; only the memory its pointers name differs.
#include <cstdint>

#include "../config.hpp"

namespace cudp::tiers {

// The two ways the GPU maps a traversal (tiers/pruning.cuh): one thread per pattern, or one per (pattern, state),
// each such thread taking 1 or 4 patterns in turn.
enum class PruningTier { by_pattern, by_state };
struct PruningTuning {
  PruningTier tier = PruningTier::by_pattern;
  int patterns_per_thread = 1;
};

// Buffers [0, tips) are tips, read-only; buffers [tips, tips + internal) hold partial likelihoods.
//
// destination = join over the children present of (child through its matrix). A child of -1 is absent (a node with
// one child); a matrix of -1 hands the child over unchanged, which is how a node with three or more children is
// written: a second operation whose first child is the destination itself.
struct PruningOperation {
  int destination;
  int child[2];
  int matrix[2];
};

template <class Real>
struct PruningBuffers {
  int patterns = 0, categories = 0, states = 0;
  int tips = 0;
  // A tip is one code per pattern: code < states is that state; code == states is "any state" (a gap or a missing
  // datum); a larger code is an ambiguity set whose 0/1 vector over states is row code - states - 1 of code_sets.
  const std::uint8_t* tip_codes = nullptr;  // [tip][pattern]
  const Real* code_sets = nullptr;          // [set][state]
  Real* partials = nullptr;                 // [buffer - tips][category][pattern][state]
  int* exponents = nullptr;                 // [buffer - tips][pattern]: the power of two each node divided out
  const Real* matrices = nullptr;           // [matrix][category][state][state], row = parent state

  CUDP_HD bool is_tip(int buffer) const { return buffer < tips; }
  CUDP_HD Real* partial(int buffer, int category, int pattern) const {
    return partials +
           ((static_cast<std::int64_t>(buffer - tips) * categories + category) * patterns + pattern) * states;
  }
  CUDP_HD int* exponent(int buffer, int pattern) const {
    return exponents + static_cast<std::int64_t>(buffer - tips) * patterns + pattern;
  }
  CUDP_HD int tip_code(int buffer, int pattern) const {
    return tip_codes[static_cast<std::int64_t>(buffer) * patterns + pattern];
  }
  CUDP_HD const Real* code_set(int code) const {
    return code_sets + static_cast<std::int64_t>(code - states - 1) * states;
  }
  CUDP_HD const Real* matrix(int index, int category) const {
    return matrices + (static_cast<std::int64_t>(index) * categories + category) * states * states;
  }
};

// After an operation on one pattern whose largest value (over states and categories) was `largest`: records the
// destination's exponent (added to its earlier one when the operation folded into it) and returns the power of two
// the caller must now divide the pattern's values by (0: none). Both tiers settle through it.
template <class Policy, class Real>
CUDP_HD int settle_exponent(const PruningBuffers<Real>& b, const PruningOperation& op, int pattern, Real largest) {
  int rescale = 0;
  if constexpr (Policy::rescales) {
    if (Policy::needs_rescale(largest)) rescale = Policy::rescale_exponent(largest);
  }
  int* exponent = b.exponent(op.destination, pattern);
  *exponent = (op.child[0] == op.destination ? *exponent : 0) + rescale;
  return rescale;
}

// One pattern of one operation, for every category: the body both tiers run. The destination's vectors are written
// in place and rescaled together, so that one exponent serves the pattern's categories.
template <class Policy, class Real>
CUDP_HD void prune_pattern(const PruningBuffers<Real>& b, const PruningOperation& op, int pattern) {
  constexpr int S = Policy::states;
  Real largest = 0;
  for (int c = 0; c < b.categories; ++c) {
    Real out[S];
    CUDP_UNROLL
    for (int s = 0; s < S; ++s) out[s] = Policy::unit();
    for (int k = 0; k < 2; ++k) {
      const int child = op.child[k];
      if (child < 0) continue;
      if (op.matrix[k] < 0) {
        const Real* v = b.partial(child, c, pattern);
        CUDP_UNROLL
        for (int s = 0; s < S; ++s) out[s] = Policy::join(out[s], v[s]);
        continue;
      }
      const Real* m = b.matrix(op.matrix[k], c);
      if (b.is_tip(child)) {
        const int code = b.tip_code(child, pattern);
        if (code <= S) {
          CUDP_UNROLL
          for (int s = 0; s < S; ++s) out[s] = Policy::join(out[s], Policy::through_edge_to_state(m + s * S, code));
        } else {
          const Real* set = b.code_set(code);
          CUDP_UNROLL
          for (int s = 0; s < S; ++s) out[s] = Policy::join(out[s], Policy::through_edge(m + s * S, set));
        }
      } else {
        const Real* v = b.partial(child, c, pattern);
        CUDP_UNROLL
        for (int s = 0; s < S; ++s) out[s] = Policy::join(out[s], Policy::through_edge(m + s * S, v));
      }
    }
    Real* dst = b.partial(op.destination, c, pattern);
    CUDP_UNROLL
    for (int s = 0; s < S; ++s) {
      dst[s] = out[s];
      largest = out[s] > largest ? out[s] : largest;
    }
  }
  const int e = settle_exponent<Policy>(b, op, pattern, largest);
  if (e == 0) return;
  for (int c = 0; c < b.categories; ++c) {
    Real* dst = b.partial(op.destination, c, pattern);
    CUDP_UNROLL
    for (int s = 0; s < S; ++s) dst[s] = Policy::rescaled(dst[s], e);
  }
}

}  // namespace cudp::tiers

namespace cudp::tiers {

// The likelihood of one pattern at the root, before its exponents are added back: sum over categories c of
// weight_c x (the policy's root sum of the root's partials, e.g. sum_s pi_s L(s)).
template <class Policy, class Real>
CUDP_HD Real root_pattern(const PruningBuffers<Real>& b, int root, const Real* frequencies, const Real* weights,
                          int pattern) {
  Real total = 0;
  for (int c = 0; c < b.categories; ++c)
    total += weights[c] * Policy::at_root(frequencies, b.partial(root, c, pattern));
  return total;
}

// The sum of the exponents `nodes` divided out of one pattern.
template <class Real>
CUDP_HD int total_exponent(const PruningBuffers<Real>& b, const int* nodes, int node_count, int pattern) {
  int total = 0;
  for (int i = 0; i < node_count; ++i) total += *b.exponent(nodes[i], pattern);
  return total;
}

}  // namespace cudp::tiers
