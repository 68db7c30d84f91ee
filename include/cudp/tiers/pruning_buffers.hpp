#pragma once
// Where the pruning tiers find a traversal: an operation list over numbered buffers, as BEAGLE's callers describe
// one (destination, two children, the matrices of their edges). The same plain view serves the host tier and the
// device tier; only the memory its pointers name differs.
#include <cstdint>
#include <type_traits>

#include "../config.hpp"

namespace cudp::tiers {

// The ways the GPU maps a traversal (tiers/pruning.cuh): one thread per pattern; one per (pattern, state), each
// such thread taking 1 or 4 patterns in turn; or a block per tile of patterns that runs each node as a matrix
// product (tiers/pruning_by_tile.cuh), on the CUDA cores (by_tile) or the tensor cores: by_tile_tensor near the
// working precision (three TF32 products per float product, FP64 MMA for double), by_tile_tf32 with one TF32
// product (float inputs rounded to 10-bit mantissas: 1e-3 of a value; double as by_tile_tensor).
enum class PruningTier { by_pattern, by_state, by_tile, by_tile_tensor, by_tile_tf32 };
struct PruningTuning {
  PruningTier tier = PruningTier::by_pattern;
  int patterns_per_thread = 1;        // by_state
  int blocks_per_multiprocessor = 1;  // by_tile*: the tile is sized so that the patterns fill this many blocks per SM
};

// Whether a policy's fold over an edge is the ordinary dot product and its join the product (Felsenstein's pruning:
// Policy::sum_of_products), which the matrix-unit and vector-lane loops need; false for a policy without the member.
template <class Policy, class = void>
struct sums_products : std::false_type {};
template <class Policy>
struct sums_products<Policy, std::void_t<decltype(Policy::sum_of_products)>>
    : std::bool_constant<Policy::sum_of_products> {};

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
  // [buffer - tips][pattern]: the power of two divided out of the buffer's values, its subtree's included, so that
  // a likelihood read from any buffers is their values times 2^(sum of their exponents).
  int* exponents = nullptr;
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
// destination's exponent (its children's, which it inherits, plus its own rescale) and returns the power of two the
// caller must now divide the pattern's values by (0: none). Both tiers settle through it; it runs after every
// thread has read the children, so a destination that is also a child is read before it is overwritten.
template <class Policy, class Real>
CUDP_HD int settle_exponent(const PruningBuffers<Real>& b, const PruningOperation& op, int pattern, Real largest) {
  int rescale = 0;
  if constexpr (Policy::rescales) {
    if (Policy::needs_rescale(largest)) rescale = Policy::rescale_exponent(largest);
  }
  int inherited = 0;
  for (int k = 0; k < 2; ++k)
    if (op.child[k] >= 0 && !b.is_tip(op.child[k])) inherited += *b.exponent(op.child[k], pattern);
  *b.exponent(op.destination, pattern) = inherited + rescale;
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

// The likelihood of one pattern across an edge, before the exponents of its two ends are added back: the root sum
// of a root placed on the edge, whose vector joins `parent`'s partials with `child` seen through the edge's matrix.
// The child may be a tip; the parent holds partials (a rerooted traversal's upper side, or the root's child).
template <class Policy, class Real>
CUDP_HD Real edge_pattern(const PruningBuffers<Real>& b, int parent, int child, int matrix, const Real* frequencies,
                          const Real* weights, int pattern) {
  constexpr int S = Policy::states;
  Real total = 0;
  for (int c = 0; c < b.categories; ++c) {
    const Real* upper = b.partial(parent, c, pattern);
    const Real* m = b.matrix(matrix, c);
    Real joined[S];
    if (b.is_tip(child)) {
      const int code = b.tip_code(child, pattern);
      if (code <= S) {
        CUDP_UNROLL
        for (int s = 0; s < S; ++s) joined[s] = Policy::join(upper[s], Policy::through_edge_to_state(m + s * S, code));
      } else {
        const Real* set = b.code_set(code);
        CUDP_UNROLL
        for (int s = 0; s < S; ++s) joined[s] = Policy::join(upper[s], Policy::through_edge(m + s * S, set));
      }
    } else {
      const Real* lower = b.partial(child, c, pattern);
      CUDP_UNROLL
      for (int s = 0; s < S; ++s) joined[s] = Policy::join(upper[s], Policy::through_edge(m + s * S, lower));
    }
    total += weights[c] * Policy::at_root(frequencies, joined);
  }
  return total;
}

// The power of two divided out of a buffer's values for one pattern (0 for a tip).
template <class Real>
CUDP_HD int buffer_exponent(const PruningBuffers<Real>& b, int buffer, int pattern) {
  return b.is_tip(buffer) ? 0 : *b.exponent(buffer, pattern);
}

}  // namespace cudp::tiers
