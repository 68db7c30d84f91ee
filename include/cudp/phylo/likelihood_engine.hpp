#pragma once
// What a backend offers the module's algorithms: buffers of partials that operations fill, transition matrices per
// edge, the root log-likelihood, and one edge's log-likelihood with its derivatives. The host backend
// (host_tree_likelihood.hpp) and the device backend (device_tree_likelihood.cuh) implement it, so that evaluation
// and optimisation (optimize.hpp) are written once.
#include <vector>

#include "../tiers/pruning_buffers.hpp"
#include "edge_likelihood.hpp"
#include "tree_likelihood.hpp"

namespace cudp::phylo {

class LikelihoodEngine {
 public:
  virtual ~LikelihoodEngine() = default;

  // A new model (eigen system, frequencies, rate categories) for the same data. Matrices are remade by the next
  // set_edge_lengths.
  virtual void set_model(const LikelihoodModel& m) = 0;
  // The matrices of every edge, from lengths per buffer (TraversalPlan::edge_length).
  virtual void set_edge_lengths(const std::vector<double>& lengths) = 0;
  // The matrices of one edge.
  virtual void set_edge_length(int buffer, double length) = 0;
  // Runs operations over the engine's buffers, in order.
  virtual void prune(const std::vector<tiers::PruningOperation>& operations) = 0;
  // The log-likelihood read at `root` (its partials weighed by the frequencies), and per pattern when `sites`.
  virtual LikelihoodResult root_log_likelihood(int root, bool sites) = 0;
  // Makes the spectrum of the edge between `below` (a tip or partials) and `above` (partials of the rest of the
  // tree) for edge_derivatives.
  virtual void prepare_edge(int below, int above) = 0;
  // The log-likelihood and its derivatives when the prepared edge has length t.
  virtual EdgeDerivatives edge_derivatives(double t) = 0;
};

// One full evaluation: every matrix, the post-order pass, the root.
inline LikelihoodResult evaluate(LikelihoodEngine& engine, const TraversalPlan& plan, bool sites = true) {
  engine.set_edge_lengths(plan.edge_length);
  engine.prune(plan.operations);
  return engine.root_log_likelihood(plan.root, sites);
}

}  // namespace cudp::phylo
