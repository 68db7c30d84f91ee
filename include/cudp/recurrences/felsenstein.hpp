#pragma once
/// \file
/// Felsenstein's pruning step: the conditional likelihood of a subtree, per state of its root, from those of its
/// children. For parent state s,
///
///     L_parent(s) = prod over children c of  sum_j P_c(s, j) L_c(j)
///
/// where P_c is the transition matrix of the edge above child c. The pruning tiers (tiers/pruning_*.{hpp,cuh}) run
/// it for every site pattern and rate category of every node of a traversal; they know nothing of models or trees.
///
/// This file is the template to copy for another recurrence on trees: replace "sum of products" by another pair of
/// operations (Sankoff's parsimony is min over j of cost(s, j) + L_c(j), joined by +, and needs no rescaling) and
/// keep the members' names.
#include <cmath>

#include "../config.hpp"

namespace cudp::recurrences {

/// The pruning step for `States` states in `Real` arithmetic (float or double): the policy of the pruning
/// tiers (tiers/pruning_host.hpp, tiers/pruning.cuh).
template <class Real, int States>
struct FelsensteinPruning {
  using Value = Real;  ///< the arithmetic
  static constexpr int states = States;  ///< states per site (4, 20, 61...)

  /// \name Joining children
  //@{
  /// What the tier starts a parent's vector from, and how it folds one child's contribution into it.
  CUDP_HD static constexpr Real unit() { return Real(1); }
  CUDP_HD static Real join(Real parent, Real through_child) { return parent * through_child; }
  //@}

  /// A child known by its partial likelihoods, seen from parent state s through row s of its edge's matrix.
  CUDP_HD static Real through_edge(const Real* matrix_row, const Real* child) {
    Real sum = 0;
    CUDP_UNROLL
    for (int j = 0; j < States; ++j) sum += matrix_row[j] * child[j];
    return sum;
  }

  /// \name The fold over an edge
  //@{
  /// through_edge as a fold over j, for tiers that compute many (parent state, pattern) pairs at once as a matrix
  /// product (tiers/pruning_by_tile.cuh): through_edge(row, child) is edge_add applied to edge_zero() and each
  /// (row[j], child[j]) in turn, in any order of j. sum_of_products says the fold is the ordinary dot product and
  /// the join the product (from unit() 1), so that a tier may hand them to matrix units (tensor cores) or to the
  /// host's vector lanes (tiers/pruning_host_lanes.hpp); a policy on other operations sets it false.
  static constexpr bool sum_of_products = true;
  CUDP_HD static constexpr Real edge_zero() { return Real(0); }
  CUDP_HD static Real edge_add(Real sum, Real matrix_entry, Real child) { return sum + matrix_entry * child; }
  //@}

  /// A tip known by one observed state, or by none (state >= States: a gap or missing datum, every state allowed,
  /// whose row sum is 1 by definition rather than by rounding).
  CUDP_HD static Real through_edge_to_state(const Real* matrix_row, int state) {
    return state < States ? matrix_row[state] : Real(1);
  }

  /// A pattern's likelihood from the root's vector: the stationary frequencies weigh the states.
  CUDP_HD static Real at_root(const Real* frequencies, const Real* root) {
    Real sum = 0;
    CUDP_UNROLL
    for (int s = 0; s < States; ++s) sum += frequencies[s] * root[s];
    return sum;
  }

  /// \name Rescaling
  //@{
  /// Rescaling against underflow. Products of probabilities shrink with every node: a pattern whose largest value
  /// over states and categories falls below 2^-rescale_below is multiplied by a power of two, which is exact, and
  /// the power is added to the pattern's running exponent (log-likelihood + exponent * ln 2 at the root).
  static constexpr bool rescales = true;
  static constexpr int rescale_below = sizeof(Real) == 4 ? 64 : 256;
  CUDP_HD static bool needs_rescale(Real largest) {
    return largest > Real(0) && largest < std::ldexp(Real(1), -rescale_below);
  }
  //@}
  /// The exponent e such that largest * 2^-e lies in [0.5, 1).
  CUDP_HD static int rescale_exponent(Real largest) {
    int e = 0;
    std::frexp(largest, &e);
    return e;
  }
  /// value * 2^-exponent, exactly.
  CUDP_HD static Real rescaled(Real value, int exponent) { return std::ldexp(value, -exponent); }
};

}  // namespace cudp::recurrences
