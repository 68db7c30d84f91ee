#pragma once
// Maximum likelihood on a fixed topology, as `iqtree -te` and `raxml-ng --evaluate` do it: branch lengths by
// Newton-Raphson on each edge's derivatives, model parameters one at a time by Brent's method, in rounds until a
// round gains less than the tolerance. Written against LikelihoodEngine, so the host and the GPU run the same
// steps; Boost.Math provides the one-dimensional solvers.
//
// A branch pass visits the edges in pre-order. Before an edge is optimised, the partials of the rest of the tree
// seen from its upper end are made from its parent's (already current) and its siblings'; after a node's subtree is
// done, its own partials are remade from its children's. Each edge costs a few pruning operations and Newton steps
// over the edge's spectrum (edge_likelihood.hpp), never a full traversal.
#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "likelihood_engine.hpp"
#include "likelihood_model.hpp"

namespace cudp::phylo {

struct OptimizeSettings {
  bool branches = true, model = true;
  double min_length = 1e-6, max_length = 100;  // IQ-TREE's lower bound; far above any sensible upper one
  double tolerance = 1e-4;                     // stop when a round gains less log-likelihood than this
  int max_rounds = 100;
};

// A model parameter that optimisation may change: where it lives in the spec, its range, and whether it is searched
// on a log scale (rates and shapes, which span orders of magnitude).
struct FreeParameter {
  std::string name;
  std::function<double&(ModelSpec&)> value;
  double lower, upper;
  bool log_scale;
};

namespace detail {

// The length of one edge that maximises the log-likelihood, from the spectrum the engine has prepared. The
// derivative's nearest root above or below the current length where it falls from positive to negative (a local
// maximum) is bracketed by doubling or halving the step from there, then found by Newton-Raphson on the first and
// second derivatives. Bracketing against the far bound instead would be wrong: at a long length the likelihood is
// flat (P(t) is the stationary matrix) and its slope can have either sign. Newton's steps lose the bracket where the
// likelihood is not concave and may end on a minimum; TOMS 748, which keeps it, takes over then. An optimum beyond
// a bound is that bound.
inline double best_edge_length(LikelihoodEngine& engine, double current, const OptimizeSettings& s) {
  const auto slope = [&](double t) { return engine.edge_derivatives(t).first; };
  current = std::clamp(current, s.min_length, s.max_length);
  const EdgeDerivatives here = engine.edge_derivatives(current);
  if (here.first == 0) return current;
  double low = current, high = current, at_low = here.first, at_high = here.first;
  if (here.first > 0) {
    for (double step = std::max(current, 1e-3); at_high > 0; step *= 2) {
      if (high >= s.max_length) return s.max_length;
      low = high, at_low = at_high;
      high = std::min(s.max_length, high + step);
      at_high = slope(high);
    }
  } else {
    while (at_low < 0) {
      if (low <= s.min_length) return s.min_length;
      high = low, at_high = at_low;
      low = std::max(s.min_length, low / 4);
      at_low = slope(low);
    }
  }
  if (at_high == 0) return high;
  if (at_low == 0) return low;
  current = std::clamp(current, low, high);
  try {
    const auto newton = [&](double t) {
      const EdgeDerivatives d = engine.edge_derivatives(t);
      return std::make_pair(d.first, d.second);
    };
    std::uintmax_t iterations = 50;
    const double t = boost::math::tools::newton_raphson_iterate(newton, current, low, high, 40, iterations);
    const EdgeDerivatives at = engine.edge_derivatives(t);
    if (at.second < 0 && at.log_likelihood >= here.log_likelihood) return t;
  } catch (const boost::math::evaluation_error&) {
  }
  std::uintmax_t iterations = 100;
  const auto bracket = boost::math::tools::toms748_solve(slope, low, high, at_low, at_high,
                                                         boost::math::tools::eps_tolerance<double>(40), iterations);
  return 0.5 * (bracket.first + bracket.second);
}

// A parameter's value on its search scale, and set from it (clamped to its range).
inline double search_coordinate(const FreeParameter& p, ModelSpec& spec) {
  return p.log_scale ? std::log(p.value(spec)) : p.value(spec);
}
inline void set_coordinate(const FreeParameter& p, ModelSpec& spec, double x) {
  p.value(spec) = std::clamp(p.log_scale ? std::exp(x) : x, p.lower, p.upper);
}
inline std::vector<double> search_point(const std::vector<FreeParameter>& parameters, ModelSpec& spec) {
  std::vector<double> x;
  for (const FreeParameter& p : parameters) x.push_back(search_coordinate(p, spec));
  return x;
}

// Maximises the log-likelihood over t of the spec that place(t, spec) makes, by Brent's method in [low, high]
// (t = 0 is the current spec, whose log-likelihood is lnl); the window moves on while the best point is on its
// edge. Keeps the best spec found and returns its log-likelihood.
template <class Place, class Load>
double maximise_along(Place place, double low, double high, ModelSpec& spec, double lnl, Load& load) {
  double shift = 0;
  for (int move = 0; move < 20; ++move) {
    const auto negative_lnl = [&](double t) {
      ModelSpec trial = spec;
      place(shift + t, trial);
      return -load(trial);
    };
    std::uintmax_t iterations = 100;
    const auto best = boost::math::tools::brent_find_minima(negative_lnl, low, high, 20, iterations);
    if (!(-best.second > lnl)) break;
    ModelSpec kept = spec;
    place(shift + best.first, kept);
    spec = kept;
    lnl = -best.second;
    const double width = high - low;
    if (best.first - low > 1e-3 * width && high - best.first > 1e-3 * width) break;
    shift += best.first;
  }
  return lnl;
}

}  // namespace detail

// One pass of Newton-Raphson over every edge; the engine's post-order partials must be those of plan's lengths
// (after evaluate), and it must hold outer_buffer_count(plan) buffers. Updates plan.edge_length and returns the
// log-likelihood after the pass, with the engine's partials current again.
inline double optimize_branches_once(LikelihoodEngine& engine, TraversalPlan& plan, const OptimizeSettings& s) {
  struct Visit {
    int buffer;
    std::size_t next_child;
  };
  std::vector<Visit> stack;
  const auto enter = [&](int buffer) {
    engine.prune(outer_operations(plan, buffer));
    engine.prepare_edge(buffer, outer_buffer(plan, buffer));
    double& length = plan.edge_length[static_cast<std::size_t>(buffer)];
    length = detail::best_edge_length(engine, length, s);
    engine.set_edge_length(buffer, length);
    stack.push_back({buffer, 0});
  };
  stack.push_back({plan.root, 0});
  while (!stack.empty()) {
    Visit& top = stack.back();
    const std::vector<int>& children = plan.children[static_cast<std::size_t>(top.buffer)];
    if (top.next_child < children.size()) {
      enter(children[top.next_child++]);
      continue;
    }
    if (!children.empty()) engine.prune(node_operations(plan, top.buffer));
    stack.pop_back();
  }
  return engine.root_log_likelihood(plan.root, false).log_likelihood;
}

// The parameters of `spec` that it leaves unset, set to their starting values in `spec`: the base model's rates
// (all of them when none is given), the gamma shape, the proportion of invariable sites, and the frequencies of
// +FO. What the spec gives stays fixed, as in IQ-TREE.
inline std::vector<FreeParameter> free_parameters(ModelSpec& spec, const SubstitutionModel& start) {
  std::vector<FreeParameter> out;
  const int count = detail::find_model(spec.base)->parameters;
  if (spec.base_parameters.empty() && count > 0) {
    // Where make_model's defaults start: kappa 2 (GY's second parameter), every other rate and omega 1.
    const bool kappas = spec.base == "K80" || spec.base == "HKY" || spec.base == "TN93";
    spec.base_parameters.assign(static_cast<std::size_t>(count), kappas ? 2.0 : 1.0);
    if (spec.codon()) spec.base_parameters.back() = 2.0;
    for (int k = 0; k < count; ++k)
      out.push_back({spec.base + " parameter " + std::to_string(k + 1),
                     [k](ModelSpec& m) -> double& { return m.base_parameters[static_cast<std::size_t>(k)]; }, 1e-4,
                     1000, true});
  }
  if (spec.gamma_categories > 0 && !spec.alpha) {
    spec.alpha = 1.0;
    out.push_back({"gamma shape", [](ModelSpec& m) -> double& { return *m.alpha; }, 0.02, 1000, true});
  }
  if (spec.invariant && !spec.invariant_proportion) {
    spec.invariant_proportion = 0.1;
    out.push_back({"proportion of invariable sites", [](ModelSpec& m) -> double& { return *m.invariant_proportion; }, 0,
                   0.99, false});
  }
  if (spec.frequencies == FrequencyChoice::optimized) {
    // Each searched on a log scale relative to the last, which stays put; make_model renormalises the set.
    spec.given_frequencies = start.frequencies;
    const std::size_t n = spec.given_frequencies.size();
    const double last = spec.given_frequencies[n - 1];
    for (std::size_t k = 0; k + 1 < n; ++k)
      out.push_back({"frequency " + std::to_string(k + 1),
                     [k](ModelSpec& m) -> double& { return m.given_frequencies[k]; }, 1e-4 * last, 1e4 * last, true});
  }
  return out;
}

struct OptimizeResult {
  double initial_log_likelihood = 0, log_likelihood = 0;
  int rounds = 0;
  ModelSpec spec;         // every parameter filled in
  LikelihoodModel model;  // as last evaluated
};

// Optimises plan's branch lengths and the spec's unset parameters (as settings choose) on `engine`, which holds
// outer_buffer_count(plan) buffers. The engine ends with the optimum's model, lengths and partials.
inline OptimizeResult optimize(LikelihoodEngine& engine, TraversalPlan& plan, ModelSpec spec,
                               const CharacterCoding& coding, const SitePatterns& data, const OptimizeSettings& s,
                               const std::function<void(const std::string&)>& progress = {}) {
  OptimizeResult r;
  LikelihoodModel model = make_likelihood_model(spec, coding, data);
  std::vector<FreeParameter> parameters;
  if (s.model) parameters = free_parameters(spec, model.model);
  if (s.model && spec.frequencies == FrequencyChoice::optimized) spec.frequencies = FrequencyChoice::given;
  const auto load = [&](const ModelSpec& candidate) {
    model = make_likelihood_model(candidate, coding, data);
    engine.set_model(model);
    return evaluate(engine, plan, false).log_likelihood;
  };
  double lnl = load(spec);
  r.initial_log_likelihood = lnl;
  for (int round = 1; round <= s.max_rounds; ++round) {
    const double before = lnl;
    if (s.branches)
      for (int pass = 0; pass < 10; ++pass) {
        const double pass_before = lnl;
        lnl = optimize_branches_once(engine, plan, s);
        if (lnl - pass_before < s.tolerance) break;
      }
    // Coordinate ascent, each parameter by Brent, then (Powell's step) along the round's net change, which is
    // what correlated parameters (the gamma shape and the invariable proportion) need to converge in a few rounds
    // rather than zigzag for dozens.
    const std::vector<double> start = detail::search_point(parameters, spec);
    for (std::size_t k = 0; k < parameters.size(); ++k) {
      const double x = detail::search_coordinate(parameters[k], spec);
      const double width = parameters[k].log_scale ? std::log(2.0) : 0.05;
      lnl = detail::maximise_along(
          [&](double t, ModelSpec& trial) { detail::set_coordinate(parameters[k], trial, x + t); }, -width, width, spec,
          lnl, load);
    }
    const std::vector<double> end = detail::search_point(parameters, spec);
    if (parameters.size() > 1 && end != start) {
      lnl = detail::maximise_along(
          [&](double t, ModelSpec& trial) {
            for (std::size_t k = 0; k < parameters.size(); ++k)
              detail::set_coordinate(parameters[k], trial, end[k] + t * (end[k] - start[k]));
          },
          -0.5, 2, spec, lnl, load);
    }
    if (!parameters.empty()) lnl = load(spec);  // the engine's partials follow the kept values
    r.rounds = round;
    if (progress) progress("round " + std::to_string(round) + ": log-likelihood " + std::to_string(lnl));
    if (lnl - before < s.tolerance) break;
  }
  r.log_likelihood = lnl;
  r.spec = spec;
  r.model = model;
  return r;
}

}  // namespace cudp::phylo
