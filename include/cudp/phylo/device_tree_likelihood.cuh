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
#include "edge_likelihood.hpp"
#include "likelihood_engine.hpp"
#include "pruning_tuning.hpp"

namespace cudp::phylo {

namespace detail {

// P[buffer][category][i][j] = sum_k V[i][k] exp(lambda_k t r_c) V^-1[k][j], computed in double, stored in Real,
// for buffers [first, first + buffers). One block per (buffer, category): the S exponentials are made once into
// shared memory (dynamic, S + 1 doubles) rather than once per entry.
template <class Real>
__global__ void transition_matrices_kernel(int first, int categories, int states, const double* lengths,
                                           const double* rates, const double* values, const double* vectors,
                                           const double* inverse, Real* out) {
  extern __shared__ double scaled[];
  const long long bc = static_cast<long long>(first) * categories + blockIdx.x;
  const int c = static_cast<int>(bc % categories), b = static_cast<int>(bc / categories);
  const double t = lengths[b] * rates[c];
  // One padding entry, zero: the compiler reads the exponentials in pairs (16-byte loads), and for an odd count
  // the last pair would otherwise reach past the array.
  for (int k = static_cast<int>(threadIdx.x); k <= states; k += static_cast<int>(blockDim.x))
    scaled[k] = k < states ? exp(values[k] * t) : 0.0;
  __syncthreads();
  Real* matrix = out + bc * states * states;
  for (int e = static_cast<int>(threadIdx.x); e < states * states; e += static_cast<int>(blockDim.x)) {
    matrix[e] = static_cast<Real>(transition_entry(states, vectors, inverse, scaled, e / states, e % states));
  }
}

// Each pattern's log-likelihood at the root (pattern_log_likelihood), and the same weighted by the pattern's count
// for the sum.
template <class Policy, class Real>
__global__ void root_log_likelihood_kernel(tiers::PruningBuffers<Real> b, int root, const Real* frequencies,
                                           const Real* category_weights, const double* invariable,
                                           const double* pattern_weights, double* out_site, double* out_weighted) {
  const int p = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (p >= b.patterns) return;
  const double scaled = static_cast<double>(tiers::root_pattern<Policy>(b, root, frequencies, category_weights, p));
  const double site = pattern_log_likelihood(scaled, tiers::buffer_exponent(b, root, p), invariable[p]);
  out_site[p] = site;
  out_weighted[p] = pattern_weights[p] * site;
}

// The spectrum of one edge for every (category, pattern): spectra[category][pattern][k].
template <int States, class Real>
__global__ void edge_spectrum_kernel(tiers::PruningBuffers<Real> b, EdgeModel m, int below, int above,
                                     double* spectra) {
  const long long index = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= static_cast<long long>(b.categories) * b.patterns) return;
  const int c = static_cast<int>(index / b.patterns), p = static_cast<int>(index % b.patterns);
  edge_spectrum<States>(b, m, below, above, c, p, spectra + index * States);
}

// Each pattern's weighted contribution to the edge's log-likelihood and derivatives at length t.
template <int States, class Real>
__global__ void edge_derivatives_kernel(tiers::PruningBuffers<Real> b, EdgeModel m, int below, int above,
                                        const double* spectra, double t, const double* invariable,
                                        const double* pattern_weights, EdgeDerivatives* out) {
  const int p = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (p >= b.patterns) return;
  double f, f1, f2;
  edge_pattern_terms<States>(m, spectra + static_cast<long long>(p) * States,
                             static_cast<long long>(b.patterns) * States, t, f, f1, f2);
  const int exponent = tiers::buffer_exponent(b, below, p) + tiers::buffer_exponent(b, above, p);
  EdgeDerivatives d = edge_pattern_derivatives(f, f1, f2, exponent, invariable[p]);
  const double w = pattern_weights[p];
  d.log_likelihood *= w;
  d.first *= w;
  d.second *= w;
  out[p] = d;
}

struct AddEdgeDerivatives {
  CUDP_HD EdgeDerivatives operator()(const EdgeDerivatives& a, const EdgeDerivatives& b) const {
    return {a.log_likelihood + b.log_likelihood, a.first + b.first, a.second + b.second};
  }
};

inline int blocks_for(long long n, int threads) { return static_cast<int>((n + threads - 1) / threads); }

}  // namespace detail

template <class Real>
class DeviceTreeLikelihood final : public LikelihoodEngine {
 public:
  // tuning: the pruning tier, pruning_tuning_for(states) unless a benchmark or a test asks for another.
  // buffers: how many the engine holds (tips included): plan.buffers to evaluate, outer_buffer_count(plan) for edge
  // likelihoods.
  DeviceTreeLikelihood(const TraversalPlan& plan, const SitePatterns& data, const LikelihoodModel& m,
                       std::optional<tiers::PruningTuning> tuning = std::nullopt, int buffers = 0)
      : tuning_(tuning.value_or(pruning_tuning_for(m.model.states))),
        plan_(plan),
        data_(data),
        patterns_(data.patterns),
        states_(m.model.states),
        categories_(static_cast<int>(m.rates.rates.size())),
        buffers_(buffers > 0 ? buffers : plan.buffers) {
    tip_codes_.upload(data.codes);
    pattern_weights_.upload(data.weights);
    operations_.upload(plan.operations);
    lengths_.upload(plan.edge_length);
    code_sets_.upload(code_set_rows<Real>(*m.coding));
    const auto partial_buffers = static_cast<std::size_t>(buffers_ - plan.tips);
    partials_.reserve(partial_buffers * static_cast<std::size_t>(categories_) * static_cast<std::size_t>(patterns_) *
                      static_cast<std::size_t>(states_));
    exponents_.reserve(partial_buffers * static_cast<std::size_t>(patterns_));
    matrices_.reserve(static_cast<std::size_t>(buffers_) * static_cast<std::size_t>(categories_) *
                      static_cast<std::size_t>(states_) * static_cast<std::size_t>(states_));
    site_.reserve(static_cast<std::size_t>(patterns_));
    weighted_.reserve(static_cast<std::size_t>(patterns_));
    sum_.reserve(1);
    set_model(m);
  }

  // A new model (frequencies, rates, eigen system) for the same data and tree.
  void set_model(const LikelihoodModel& m) override {
    if (m.model.states != states_ || static_cast<int>(m.rates.rates.size()) != categories_)
      throw std::invalid_argument("DeviceTreeLikelihood::set_model: states and categories are fixed per instance");
    values_.upload(m.eigen.values);
    vectors_.upload(m.eigen.vectors);
    inverse_.upload(m.eigen.inverse);
    rates_.upload(m.rates.rates);
    frequencies_double_.upload(m.model.frequencies);
    category_weights_double_.upload(m.rates.weights);
    frequencies_.upload(std::vector<Real>(m.model.frequencies.begin(), m.model.frequencies.end()));
    category_weights_.upload(std::vector<Real>(m.rates.weights.begin(), m.rates.weights.end()));
    invariable_.upload(invariable_parts(data_, m));
  }

  // Branch lengths per buffer, as TraversalPlan::edge_length, and their matrices.
  void set_edge_lengths(const std::vector<double>& lengths) override {
    lengths_.upload(lengths);
    build_matrices(0, static_cast<int>(lengths.size()), 0);
  }

  void set_edge_length(int buffer, double length) override {
    CUDP_CUDA_CHECK(cudaMemcpyAsync(lengths_.get() + buffer, &length, sizeof(double), cudaMemcpyHostToDevice, 0));
    build_matrices(buffer, 1, 0);
  }

  void prune(const std::vector<tiers::PruningOperation>& operations) override {
    staged_operations_.upload(operations);
    launch_pruning(staged_operations_.get(), static_cast<int>(operations.size()), 0);
  }

  LikelihoodResult root_log_likelihood(int root, bool sites) override {
    root_and_sum(root, 0);
    return download(sites, 0);
  }

  void prepare_edge(int below, int above) override {
    below_ = below;
    above_ = above;
    const long long count = static_cast<long long>(categories_) * patterns_;
    spectra_.reserve(static_cast<std::size_t>(count) * static_cast<std::size_t>(states_));
    with_states(states_, "DeviceTreeLikelihood", [&](auto states) {
      constexpr int S = decltype(states)::value;
      detail::edge_spectrum_kernel<S, Real>
          <<<detail::blocks_for(count, 128), 128>>>(buffers(), edge_model(), below, above, spectra_.get());
    });
    CUDP_CUDA_CHECK(cudaGetLastError());
  }

  EdgeDerivatives edge_derivatives(double t) override {
    edge_terms_.reserve(static_cast<std::size_t>(patterns_));
    edge_sum_.reserve(1);
    with_states(states_, "DeviceTreeLikelihood", [&](auto states) {
      constexpr int S = decltype(states)::value;
      detail::edge_derivatives_kernel<S, Real>
          <<<detail::blocks_for(patterns_, 128), 128>>>(buffers(), edge_model(), below_, above_, spectra_.get(), t,
                                                        invariable_.get(), pattern_weights_.get(), edge_terms_.get());
    });
    CUDP_CUDA_CHECK(cudaGetLastError());
    std::size_t bytes = 0;
    const detail::AddEdgeDerivatives add;
    CUDP_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, edge_terms_.get(), edge_sum_.get(), patterns_, add,
                                              EdgeDerivatives{}));
    scratch_.reserve(bytes);
    CUDP_CUDA_CHECK(cub::DeviceReduce::Reduce(scratch_.get(), bytes, edge_terms_.get(), edge_sum_.get(), patterns_, add,
                                              EdgeDerivatives{}));
    EdgeDerivatives total;
    CUDP_CUDA_CHECK(cudaMemcpy(&total, edge_sum_.get(), sizeof total, cudaMemcpyDeviceToHost));
    return total;
  }

  // One full evaluation of the plan with the edge lengths last set: matrices, partials, root log-likelihood. With
  // sites, the per-pattern values too.
  LikelihoodResult evaluate(bool sites = true, cudaStream_t stream = 0) {
    run(stream);
    return download(sites, stream);
  }

  // The launches of one evaluation, leaving the total on the device (for timing without the copy back).
  void run(cudaStream_t stream = 0) {
    build_matrices(0, plan_.buffers, stream);
    launch_pruning(operations_.get(), static_cast<int>(plan_.operations.size()), stream);
    root_and_sum(plan_.root, stream);
  }

  // The transition matrices of buffers [first, first + count) from the lengths last set (public for benchmarks).
  void build_matrices(int first, int count, cudaStream_t stream) {
    if (count == 0) return;
    const int threads = states_ * states_ >= 256 ? 256 : 64;
    detail::transition_matrices_kernel<Real>
        <<<count * categories_, threads, sizeof(double) * static_cast<std::size_t>(states_ + 1), stream>>>(
            first, categories_, states_, lengths_.get(), rates_.get(), values_.get(), vectors_.get(), inverse_.get(),
            matrices_.get());
    CUDP_CUDA_CHECK(cudaGetLastError());
  }

 private:
  tiers::PruningBuffers<Real> buffers() const {
    tiers::PruningBuffers<Real> b;
    b.patterns = patterns_;
    b.categories = categories_;
    b.states = states_;
    b.tips = plan_.tips;
    b.tip_codes = tip_codes_.get();
    b.code_sets = code_sets_.get();
    b.partials = partials_.get();
    b.exponents = exponents_.get();
    b.matrices = matrices_.get();
    return b;
  }

  EdgeModel edge_model() const {
    EdgeModel m;
    m.states = states_;
    m.categories = categories_;
    m.frequencies = frequencies_double_.get();
    m.values = values_.get();
    m.vectors = vectors_.get();
    m.inverse = inverse_.get();
    m.rates = rates_.get();
    m.weights = category_weights_double_.get();
    return m;
  }

  void launch_pruning(const tiers::PruningOperation* operations, int count, cudaStream_t stream) {
    with_states(states_, "DeviceTreeLikelihood", [&](auto states) {
      using Policy = recurrences::FelsensteinPruning<Real, decltype(states)::value>;
      CUDP_CUDA_CHECK(tiers::launch_pruning<Policy>(tuning_, buffers(), operations, count, stream));
    });
  }

  // Each pattern's log-likelihood at `root` into site_, and their weighted sum into sum_.
  void root_and_sum(int root, cudaStream_t stream) {
    with_states(states_, "DeviceTreeLikelihood", [&](auto states) {
      using Policy = recurrences::FelsensteinPruning<Real, decltype(states)::value>;
      detail::root_log_likelihood_kernel<Policy><<<detail::blocks_for(patterns_, 128), 128, 0, stream>>>(
          buffers(), root, frequencies_.get(), category_weights_.get(), invariable_.get(), pattern_weights_.get(),
          site_.get(), weighted_.get());
    });
    CUDP_CUDA_CHECK(cudaGetLastError());
    std::size_t bytes = 0;
    CUDP_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, weighted_.get(), sum_.get(), patterns_, stream));
    scratch_.reserve(bytes);
    CUDP_CUDA_CHECK(cub::DeviceReduce::Sum(scratch_.get(), bytes, weighted_.get(), sum_.get(), patterns_, stream));
  }

  LikelihoodResult download(bool sites, cudaStream_t stream) {
    LikelihoodResult r;
    CUDP_CUDA_CHECK(cudaMemcpyAsync(&r.log_likelihood, sum_.get(), sizeof(double), cudaMemcpyDeviceToHost, stream));
    if (sites) {
      r.pattern_log_likelihoods.resize(static_cast<std::size_t>(patterns_));
      site_.download(r.pattern_log_likelihoods.data(), r.pattern_log_likelihoods.size(), stream);
    }
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream));
    return r;
  }

  tiers::PruningTuning tuning_;
  TraversalPlan plan_;
  SitePatterns data_;  // kept for the invariable part, which changes with the model
  int patterns_, states_, categories_, buffers_;
  int below_ = -1, above_ = -1;
  engine::DeviceBuffer<std::uint8_t> tip_codes_;
  engine::DeviceBuffer<double> pattern_weights_, lengths_, values_, vectors_, inverse_, rates_, invariable_, site_,
      weighted_, sum_, frequencies_double_, category_weights_double_, spectra_;
  engine::DeviceBuffer<Real> code_sets_, partials_, matrices_, frequencies_, category_weights_;
  engine::DeviceBuffer<int> exponents_;
  engine::DeviceBuffer<tiers::PruningOperation> operations_, staged_operations_;
  engine::DeviceBuffer<EdgeDerivatives> edge_terms_, edge_sum_;
  engine::DeviceBuffer<unsigned char> scratch_;
};

}  // namespace cudp::phylo
