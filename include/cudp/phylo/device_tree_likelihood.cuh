#pragma once
// A tree's log-likelihood on the GPU. The data (tip codes, pattern weights) are uploaded once; each evaluation
// builds every edge's transition matrices on the device from the model's one eigen-decomposition, runs the whole
// traversal in one launch (tiers/pruning.cuh) and sums the patterns with CUB.
#include <cub/device/device_reduce.cuh>
#include <optional>
#include <vector>

#include "../engine/cuda_check.cuh"
#include "../engine/device_buffer.cuh"
#include "../tiers/pruning.cuh"
#include "pruning_tuning.hpp"
#include "tree_likelihood.hpp"

namespace cudp::phylo {

namespace detail {

// P[buffer][category][i][j] = sum_k V[i][k] exp(lambda_k t r_c) V^-1[k][j], computed in double, stored in Real.
template <class Real>
__global__ void transition_matrices_kernel(int buffers, int categories, int states, const double* lengths,
                                           const double* rates, const double* values, const double* vectors,
                                           const double* inverse, Real* out) {
  const long long index = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long s2 = static_cast<long long>(states) * states;
  if (index >= static_cast<long long>(buffers) * categories * s2) return;
  const int j = static_cast<int>(index % states), i = static_cast<int>((index / states) % states);
  const long long bc = index / s2;
  const int c = static_cast<int>(bc % categories), b = static_cast<int>(bc / categories);
  const double t = lengths[b] * rates[c];
  double sum = 0;
  for (int k = 0; k < states; ++k) sum += vectors[i * states + k] * exp(values[k] * t) * inverse[k * states + j];
  out[index] = static_cast<Real>(sum < 0 ? 0 : sum);
}

// Each pattern's log-likelihood at the root (pattern_log_likelihood), and the same weighted by the pattern's count
// for the sum.
template <class Policy, class Real>
__global__ void root_log_likelihood_kernel(tiers::PruningBuffers<Real> b, int root, const Real* frequencies,
                                           const Real* category_weights, const int* internal, int internal_count,
                                           const double* invariable, const double* pattern_weights, double* out_site,
                                           double* out_weighted) {
  const int p = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (p >= b.patterns) return;
  const double scaled = static_cast<double>(tiers::root_pattern<Policy>(b, root, frequencies, category_weights, p));
  const double site =
      pattern_log_likelihood(scaled, tiers::total_exponent(b, internal, internal_count, p), invariable[p]);
  out_site[p] = site;
  out_weighted[p] = pattern_weights[p] * site;
}

inline int blocks_for(long long n, int threads) { return static_cast<int>((n + threads - 1) / threads); }

}  // namespace detail

template <class Real>
class DeviceTreeLikelihood {
 public:
  // tuning: the pruning tier, pruning_tuning_for(states) unless a benchmark or a test asks for another.
  DeviceTreeLikelihood(const TraversalPlan& plan, const SitePatterns& data, const LikelihoodModel& m,
                       std::optional<tiers::PruningTuning> tuning = std::nullopt)
      : tuning_(tuning.value_or(pruning_tuning_for(m.model.states))),
        plan_(plan),
        data_(data),
        patterns_(data.patterns),
        states_(m.model.states),
        categories_(static_cast<int>(m.rates.rates.size())) {
    tip_codes_.upload(data.codes);
    pattern_weights_.upload(data.weights);
    operations_.upload(plan.operations);
    internal_.upload(plan.internal);
    lengths_.upload(plan.edge_length);
    code_sets_.upload(code_set_rows<Real>(*m.coding));
    const auto internal = static_cast<std::size_t>(plan.buffers - plan.tips);
    partials_.reserve(internal * static_cast<std::size_t>(categories_) * static_cast<std::size_t>(patterns_) *
                      static_cast<std::size_t>(states_));
    exponents_.reserve(internal * static_cast<std::size_t>(patterns_));
    site_.reserve(static_cast<std::size_t>(patterns_));
    weighted_.reserve(static_cast<std::size_t>(patterns_));
    sum_.reserve(1);
    set_model(m);
  }

  // A new model (frequencies, rates, eigen system) for the same data and tree.
  void set_model(const LikelihoodModel& m) {
    if (m.model.states != states_ || static_cast<int>(m.rates.rates.size()) != categories_)
      throw std::invalid_argument("DeviceTreeLikelihood::set_model: states and categories are fixed per instance");
    values_.upload(m.eigen.values);
    vectors_.upload(m.eigen.vectors);
    inverse_.upload(m.eigen.inverse);
    rates_.upload(m.rates.rates);
    frequencies_.upload(std::vector<Real>(m.model.frequencies.begin(), m.model.frequencies.end()));
    category_weights_.upload(std::vector<Real>(m.rates.weights.begin(), m.rates.weights.end()));
    invariable_.upload(invariable_parts(data_, m));
  }

  // Branch lengths per buffer, as TraversalPlan::edge_length.
  void set_edge_lengths(const std::vector<double>& lengths) { lengths_.upload(lengths); }

  // One full evaluation: matrices, partials, root log-likelihood. With sites, the per-pattern values too.
  LikelihoodResult evaluate(bool sites = true, cudaStream_t stream = 0) {
    run(stream);
    LikelihoodResult r;
    CUDP_CUDA_CHECK(cudaMemcpyAsync(&r.log_likelihood, sum_.get(), sizeof(double), cudaMemcpyDeviceToHost, stream));
    if (sites) {
      r.pattern_log_likelihoods.resize(static_cast<std::size_t>(patterns_));
      site_.download(r.pattern_log_likelihoods.data(), r.pattern_log_likelihoods.size(), stream);
    }
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream));
    return r;
  }

  // The launches of one evaluation, leaving the total on the device (for timing without the copy back).
  void run(cudaStream_t stream = 0) {
    const long long matrix_entries =
        static_cast<long long>(plan_.buffers) * categories_ * states_ * static_cast<long long>(states_);
    matrices_.reserve(static_cast<std::size_t>(matrix_entries));
    detail::transition_matrices_kernel<Real><<<detail::blocks_for(matrix_entries, 256), 256, 0, stream>>>(
        plan_.buffers, categories_, states_, lengths_.get(), rates_.get(), values_.get(), vectors_.get(),
        inverse_.get(), matrices_.get());
    CUDP_CUDA_CHECK(cudaGetLastError());
    switch (states_) {
      case 4:
        prune<4>(stream);
        break;
      case 20:
        prune<20>(stream);
        break;
      case 61:
        prune<61>(stream);
        break;
      default:
        throw std::invalid_argument("DeviceTreeLikelihood: " + std::to_string(states_) + " states are not built");
    }
    std::size_t bytes = 0;
    CUDP_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, weighted_.get(), sum_.get(), patterns_, stream));
    scratch_.reserve(bytes);
    CUDP_CUDA_CHECK(cub::DeviceReduce::Sum(scratch_.get(), bytes, weighted_.get(), sum_.get(), patterns_, stream));
  }

 private:
  template <int States>
  void prune(cudaStream_t stream) {
    using Policy = recurrences::FelsensteinPruning<Real, States>;
    tiers::PruningBuffers<Real> b;
    b.patterns = patterns_;
    b.categories = categories_;
    b.states = States;
    b.tips = plan_.tips;
    b.tip_codes = tip_codes_.get();
    b.code_sets = code_sets_.get();
    b.partials = partials_.get();
    b.exponents = exponents_.get();
    b.matrices = matrices_.get();
    CUDP_CUDA_CHECK(tiers::launch_pruning<Policy>(tuning_, b, operations_.get(),
                                                  static_cast<int>(plan_.operations.size()), stream));
    constexpr int threads = 128;
    const int blocks = detail::blocks_for(patterns_, threads);
    detail::root_log_likelihood_kernel<Policy>
        <<<blocks, threads, 0, stream>>>(b, plan_.root, frequencies_.get(), category_weights_.get(), internal_.get(),
                                         static_cast<int>(plan_.internal.size()), invariable_.get(),
                                         pattern_weights_.get(), site_.get(), weighted_.get());
    CUDP_CUDA_CHECK(cudaGetLastError());
  }

  tiers::PruningTuning tuning_;
  TraversalPlan plan_;
  SitePatterns data_;  // kept for the invariable part, which changes with the model
  int patterns_, states_, categories_;
  engine::DeviceBuffer<std::uint8_t> tip_codes_;
  engine::DeviceBuffer<double> pattern_weights_, lengths_, values_, vectors_, inverse_, rates_, invariable_, site_,
      weighted_, sum_;
  engine::DeviceBuffer<Real> code_sets_, partials_, matrices_, frequencies_, category_weights_;
  engine::DeviceBuffer<int> exponents_, internal_;
  engine::DeviceBuffer<tiers::PruningOperation> operations_;
  engine::DeviceBuffer<unsigned char> scratch_;
};

}  // namespace cudp::phylo
