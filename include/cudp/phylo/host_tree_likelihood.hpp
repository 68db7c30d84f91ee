#pragma once
// A tree's likelihood on the host: the host pruning tier (tiers/pruning_host.hpp) over buffers in Real precision,
// matrices and the root and edge sums in double, on `threads` threads. Sums over patterns are made per block of
// patterns and added in block order, so that a result does not depend on the thread count.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "../host/aligned_allocator.hpp"
#include "../host/parallel_for.hpp"
#include "../tiers/pruning_host.hpp"
#include "likelihood_engine.hpp"

namespace cudp::phylo {

template <class Real>
class HostTreeLikelihood final : public LikelihoodEngine {
 public:
  // buffers: how many the engine holds (tips included): plan.buffers to evaluate, outer_buffer_count(plan) for
  // edge likelihoods.
  HostTreeLikelihood(const TraversalPlan& plan, const SitePatterns& data, const LikelihoodModel& m, int buffers = 0,
                     int threads = 0)
      : data_(data), threads_(threads), buffers_(buffers > 0 ? buffers : plan.buffers), tips_(plan.tips) {
    set_model(m);
    const auto partial_buffers = static_cast<std::size_t>(buffers_ - tips_);
    partials_.resize(partial_buffers * static_cast<std::size_t>(categories_) * static_cast<std::size_t>(patterns()) *
                     static_cast<std::size_t>(states_));
    exponents_.resize(partial_buffers * static_cast<std::size_t>(patterns()));
    matrices_double_.resize(static_cast<std::size_t>(buffers_) * matrix_size());
    matrices_.resize(matrices_double_.size());
  }

  void set_model(const LikelihoodModel& m) override {
    if (states_ != 0 && (m.model.states != states_ || static_cast<int>(m.rates.rates.size()) != categories_))
      throw std::invalid_argument("HostTreeLikelihood::set_model: states and categories are fixed per instance");
    model_ = m;
    states_ = m.model.states;
    categories_ = static_cast<int>(m.rates.rates.size());
    code_sets_ = code_set_rows<Real>(*m.coding);
    frequencies_.assign(m.model.frequencies.begin(), m.model.frequencies.end());
    category_weights_.assign(m.rates.weights.begin(), m.rates.weights.end());
    invariable_ = invariable_parts(data_, m);
  }

  void set_edge_lengths(const std::vector<double>& lengths) override {
    for (std::size_t b = 0; b < lengths.size(); ++b) set_edge_length(static_cast<int>(b), lengths[b]);
  }

  void set_edge_length(int buffer, double length) override {
    const std::size_t s2 = static_cast<std::size_t>(states_) * static_cast<std::size_t>(states_);
    for (int c = 0; c < categories_; ++c) {
      const std::size_t at =
          (static_cast<std::size_t>(buffer) * static_cast<std::size_t>(categories_) + static_cast<std::size_t>(c)) * s2;
      model_.eigen.transition_matrix(length * model_.rates.rates[static_cast<std::size_t>(c)], &matrices_double_[at]);
      for (std::size_t e = 0; e < s2; ++e) matrices_[at + e] = static_cast<Real>(matrices_double_[at + e]);
    }
  }

  void prune(const std::vector<tiers::PruningOperation>& operations) override {
    with_states(states_, "HostTreeLikelihood", [&](auto states) {
      tiers::prune_on_host<recurrences::FelsensteinPruning<Real, decltype(states)::value>>(buffers(), operations,
                                                                                           threads_);
    });
  }

  LikelihoodResult root_log_likelihood(int root, bool sites) override {
    std::vector<double> site(static_cast<std::size_t>(patterns()));
    with_states(states_, "HostTreeLikelihood", [&](auto states) {
      using Policy = recurrences::FelsensteinPruning<Real, decltype(states)::value>;
      const tiers::PruningBuffers<Real> b = buffers();
      for_pattern_blocks([&](int first, int last) {
        for (int p = first; p < last; ++p) {
          const Real scaled = tiers::root_pattern<Policy>(b, root, frequencies_.data(), category_weights_.data(), p);
          site[static_cast<std::size_t>(p)] =
              pattern_log_likelihood(static_cast<double>(scaled), tiers::buffer_exponent(b, root, p),
                                     invariable_[static_cast<std::size_t>(p)]);
        }
      });
    });
    LikelihoodResult r = sum_patterns(data_, std::move(site));
    if (!sites) r.pattern_log_likelihoods.clear();
    return r;
  }

  void prepare_edge(int below, int above) override {
    below_ = below;
    above_ = above;
    spectra_.resize(static_cast<std::size_t>(categories_) * static_cast<std::size_t>(patterns()) *
                    static_cast<std::size_t>(states_));
    with_states(states_, "HostTreeLikelihood", [&](auto states) {
      constexpr int S = decltype(states)::value;
      const tiers::PruningBuffers<Real> b = buffers();
      const EdgeModel m = edge_model();
      for_pattern_blocks([&](int first, int last) {
        for (int c = 0; c < categories_; ++c)
          for (int p = first; p < last; ++p) edge_spectrum<S>(b, m, below, above, c, p, spectrum(c, p));
      });
    });
  }

  EdgeDerivatives edge_derivatives(double t) override {
    const std::size_t blocks = block_count();
    std::vector<EdgeDerivatives> partial_sums(blocks);
    with_states(states_, "HostTreeLikelihood", [&](auto states) {
      constexpr int S = decltype(states)::value;
      const tiers::PruningBuffers<Real> b = buffers();
      const EdgeModel m = edge_model();
      const auto stride = static_cast<long long>(patterns()) * S;
      host::parallel_for(
          blocks, threads_, [] { return 0; },
          [&](int, std::size_t block) {
            EdgeDerivatives sum;
            const int first = static_cast<int>(block) * tiers::host_pruning_block;
            const int last = std::min(patterns(), first + tiers::host_pruning_block);
            for (int p = first; p < last; ++p) {
              double f = 0, f1 = 0, f2 = 0;
              edge_pattern_terms<S>(m, spectrum(0, p), stride, t, f, f1, f2);
              const int exponent = tiers::buffer_exponent(b, below_, p) + tiers::buffer_exponent(b, above_, p);
              const EdgeDerivatives d =
                  edge_pattern_derivatives(f, f1, f2, exponent, invariable_[static_cast<std::size_t>(p)]);
              const double w = data_.weights[static_cast<std::size_t>(p)];
              sum.log_likelihood += w * d.log_likelihood;
              sum.first += w * d.first;
              sum.second += w * d.second;
            }
            partial_sums[block] = sum;
          });
    });
    EdgeDerivatives total;
    for (const EdgeDerivatives& s : partial_sums) {
      total.log_likelihood += s.log_likelihood;
      total.first += s.first;
      total.second += s.second;
    }
    return total;
  }

  // The buffers as the tiers see them (for tests that read partials).
  tiers::PruningBuffers<Real> buffers() {
    tiers::PruningBuffers<Real> b;
    b.patterns = patterns();
    b.categories = categories_;
    b.states = states_;
    b.tips = tips_;
    b.tip_codes = data_.codes.data();
    b.code_sets = code_sets_.data();
    b.partials = partials_.data();
    b.exponents = exponents_.data();
    b.matrices = matrices_.data();
    return b;
  }

 private:
  int patterns() const { return data_.patterns; }
  std::size_t matrix_size() const {
    return static_cast<std::size_t>(categories_) * static_cast<std::size_t>(states_) *
           static_cast<std::size_t>(states_);
  }
  std::size_t block_count() const {
    return (static_cast<std::size_t>(patterns()) + tiers::host_pruning_block - 1) / tiers::host_pruning_block;
  }
  template <class Body>
  void for_pattern_blocks(Body body) {
    host::parallel_for(
        block_count(), threads_, [] { return 0; },
        [&](int, std::size_t block) {
          const int first = static_cast<int>(block) * tiers::host_pruning_block;
          body(first, std::min(patterns(), first + tiers::host_pruning_block));
        });
  }
  double* spectrum(int category, int pattern) {
    return &spectra_[(static_cast<std::size_t>(category) * static_cast<std::size_t>(patterns()) +
                      static_cast<std::size_t>(pattern)) *
                     static_cast<std::size_t>(states_)];
  }
  EdgeModel edge_model() const {
    EdgeModel m;
    m.states = states_;
    m.categories = categories_;
    m.frequencies = model_.model.frequencies.data();
    m.values = model_.eigen.values.data();
    m.vectors = model_.eigen.vectors.data();
    m.inverse = model_.eigen.inverse.data();
    m.rates = model_.rates.rates.data();
    m.weights = model_.rates.weights.data();
    return m;
  }

  SitePatterns data_;
  int threads_, buffers_, tips_;
  int states_ = 0, categories_ = 0;
  LikelihoodModel model_;
  std::vector<Real> code_sets_, frequencies_, category_weights_, matrices_;
  std::vector<Real, host::CacheLineAllocator<Real>> partials_;  // read and written in vector lanes
  std::vector<double> matrices_double_, invariable_, spectra_;
  std::vector<int> exponents_;
  int below_ = -1, above_ = -1;
};

// Host evaluation in Real (double or float) precision, on `threads` threads (0: all).
template <class Real>
LikelihoodResult evaluate_on_host(const TraversalPlan& plan, const SitePatterns& data, const LikelihoodModel& m,
                                  int threads = 0) {
  HostTreeLikelihood<Real> engine(plan, data, m, plan.buffers, threads);
  return evaluate(engine, plan);
}

}  // namespace cudp::phylo
