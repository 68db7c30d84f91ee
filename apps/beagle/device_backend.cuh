#pragma once
// The GPU backend: buffers in one device's memory, each traversal one launch of cudp's GPU pruning tiers
// (tiers::launch_pruning, with the tier phylo::pruning_tuning_for picks for the state count), transition matrices
// made on the device from the eigen systems, and per-pattern log-likelihoods by a kernel that the host sums. Calls
// are synchronous as BEAGLE_FLAG_COMPUTATION_SYNCH promises: whatever returns a value waits for it.
#include <algorithm>
#include <cudp/engine/device_buffer.cuh>
#include <cudp/phylo/pruning_tuning.hpp>
#include <cudp/recurrences/felsenstein.hpp>
#include <cudp/tiers/pruning.cuh>
#include <vector>

#include "site_likelihood.hpp"
#include "states.hpp"

namespace cudp_beagle {

// One block per (request, category): the exponentials once in shared memory, then the S x S entries.
template <class Real>
__global__ void transition_matrices_kernel(const MatrixRequest* requests, int categories, int states,
                                           const double* rates, const double* values, const double* vectors,
                                           const double* inverse, Real* matrices) {
  extern __shared__ double scaled[];
  const MatrixRequest r = requests[blockIdx.x];
  const int c = static_cast<int>(blockIdx.y);
  const double t = r.length * rates[r.rates * categories + c];
  // One padding entry, zero, as in phylo::detail::transition_matrices_kernel (16-byte loads of pairs).
  for (int k = static_cast<int>(threadIdx.x); k <= states; k += static_cast<int>(blockDim.x))
    scaled[k] = k < states ? exp(values[r.eigen * states + k] * t) : 0.0;
  __syncthreads();
  const long long s2 = static_cast<long long>(states) * states;
  const double* v = vectors + r.eigen * s2;
  const double* w = inverse + r.eigen * s2;
  Real* out = matrices + (static_cast<long long>(r.matrix) * categories + c) * s2;
  for (int e = static_cast<int>(threadIdx.x); e < s2; e += static_cast<int>(blockDim.x))
    out[e] = static_cast<Real>(transition_entry(states, v, w, scaled, e / states, e % states));
}

template <class Policy, class Real>
__global__ void site_log_likelihood_kernel(cudp::tiers::PruningBuffers<Real> b, const SiteTerm* terms, int count,
                                           const Real* weights, const Real* frequencies, double* out) {
  const int p = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (p < b.patterns) out[p] = site_log_likelihood<Policy>(b, terms, count, weights, frequencies, p);
}

template <class Real, int S>
class DeviceBackend final : public Backend {
  using Policy = cudp::recurrences::FelsensteinPruning<Real, S>;

 public:
  DeviceBackend(int device, const Layout& layout, int matrices, int eigens)
      : device_(device), tuning_(cudp::phylo::pruning_tuning_for(S)), categories_(layout.categories) {
    select();
    const std::size_t m = static_cast<std::size_t>(matrices) * categories_ * S * S;
    matrices_.reserve(m);
    fill(matrices_.get(), 0, m * sizeof(Real));
    const auto e = static_cast<std::size_t>(eigens);
    values_.upload(std::vector<double>(e * S, 0.0));
    vectors_.upload(std::vector<double>(e * S * S, 0.0));
    inverse_.upload(std::vector<double>(e * S * S, 0.0));
    weights_.upload(std::vector<Real>(e * categories_, Real(1) / Real(categories_)));
    frequencies_.upload(std::vector<Real>(e * S, Real(1) / Real(S)));
    relayout(layout);
  }

  void relayout(const Layout& layout) override {
    select();
    layout_ = layout;
    codes_.reserve(layout.codes());
    partials_.reserve(layout.partials());
    exponents_.reserve(layout.exponents());
    sites_.reserve(static_cast<std::size_t>(layout.patterns()));
    fill(codes_.get(), S, layout.codes());
    fill(partials_.get(), 0, layout.partials() * sizeof(Real));
    fill(exponents_.get(), 0, layout.exponents() * sizeof(int));
  }

  void set_codes(int tip, const std::vector<std::uint8_t>& codes) override {
    select();
    for (int q = 0; q < layout_.partitions(); ++q) {
      const auto n = static_cast<std::size_t>(layout_.size(q));
      CUDP_CUDA_CHECK(cudaMemcpy(codes_.get() + layout_.code_offset(q) + static_cast<std::size_t>(tip) * n,
                                 codes.data() + layout_.start[static_cast<std::size_t>(q)], n, cudaMemcpyHostToDevice));
    }
  }

  void set_partials(int slot, const std::vector<double>& values) override {
    select();
    const auto total = static_cast<std::size_t>(layout_.patterns());
    std::vector<Real> block;
    for (int q = 0; q < layout_.partitions(); ++q) {
      const auto n = static_cast<std::size_t>(layout_.size(q));
      const auto first = static_cast<std::size_t>(layout_.start[static_cast<std::size_t>(q)]);
      block.resize(static_cast<std::size_t>(categories_) * n * S);
      for (std::size_t c = 0; c < static_cast<std::size_t>(categories_); ++c)
        for (std::size_t p = 0; p < n; ++p)
          for (std::size_t x = 0; x < S; ++x)
            block[(c * n + p) * S + x] = static_cast<Real>(values[(c * total + first + p) * S + x]);
      CUDP_CUDA_CHECK(
          cudaMemcpy(slot_block(q, slot), block.data(), block.size() * sizeof(Real), cudaMemcpyHostToDevice));
      CUDP_CUDA_CHECK(cudaMemset(exponents_.get() + layout_.exponent_offset(q) + static_cast<std::size_t>(slot) * n, 0,
                                 n * sizeof(int)));
    }
  }

  void get_partials(int slot, std::vector<double>& values, std::vector<int>& exponents) override {
    select();
    const auto total = static_cast<std::size_t>(layout_.patterns());
    values.resize(static_cast<std::size_t>(categories_) * total * S);
    exponents.resize(total);
    std::vector<Real> block;
    for (int q = 0; q < layout_.partitions(); ++q) {
      const auto n = static_cast<std::size_t>(layout_.size(q));
      const auto first = static_cast<std::size_t>(layout_.start[static_cast<std::size_t>(q)]);
      block.resize(static_cast<std::size_t>(categories_) * n * S);
      CUDP_CUDA_CHECK(
          cudaMemcpy(block.data(), slot_block(q, slot), block.size() * sizeof(Real), cudaMemcpyDeviceToHost));
      for (std::size_t c = 0; c < static_cast<std::size_t>(categories_); ++c)
        for (std::size_t p = 0; p < n; ++p)
          for (std::size_t x = 0; x < S; ++x)
            values[(c * total + first + p) * S + x] = static_cast<double>(block[(c * n + p) * S + x]);
      CUDP_CUDA_CHECK(cudaMemcpy(exponents.data() + first,
                                 exponents_.get() + layout_.exponent_offset(q) + static_cast<std::size_t>(slot) * n,
                                 n * sizeof(int), cudaMemcpyDeviceToHost));
    }
  }

  void set_eigen(int index, const double* vectors, const double* inverse, const double* values) override {
    select();
    const auto e = static_cast<std::size_t>(index);
    CUDP_CUDA_CHECK(cudaMemcpy(values_.get() + e * S, values, S * sizeof(double), cudaMemcpyHostToDevice));
    CUDP_CUDA_CHECK(cudaMemcpy(vectors_.get() + e * S * S, vectors, S * S * sizeof(double), cudaMemcpyHostToDevice));
    CUDP_CUDA_CHECK(cudaMemcpy(inverse_.get() + e * S * S, inverse, S * S * sizeof(double), cudaMemcpyHostToDevice));
  }

  void set_category_weights(int index, const double* weights) override {
    select();
    std::vector<Real> w(weights, weights + categories_);
    CUDP_CUDA_CHECK(cudaMemcpy(weights_.get() + static_cast<std::size_t>(index) * categories_, w.data(),
                               w.size() * sizeof(Real), cudaMemcpyHostToDevice));
  }

  void set_frequencies(int index, const double* frequencies) override {
    select();
    std::vector<Real> f(frequencies, frequencies + S);
    CUDP_CUDA_CHECK(cudaMemcpy(frequencies_.get() + static_cast<std::size_t>(index) * S, f.data(), S * sizeof(Real),
                               cudaMemcpyHostToDevice));
  }

  void update_matrices(const std::vector<MatrixRequest>& requests, const std::vector<double>& rates) override {
    select();
    requests_.upload(requests);
    rates_.upload(rates);
    const dim3 grid(static_cast<unsigned>(requests.size()), static_cast<unsigned>(categories_));
    transition_matrices_kernel<Real><<<grid, std::min(S * S, 256), (S + 1) * sizeof(double)>>>(
        requests_.get(), categories_, S, rates_.get(), values_.get(), vectors_.get(), inverse_.get(), matrices_.get());
    CUDP_CUDA_CHECK(cudaGetLastError());
  }

  void set_matrix(int index, const double* values) override {
    select();
    const std::size_t n = static_cast<std::size_t>(categories_) * S * S;
    std::vector<Real> m(values, values + n);
    CUDP_CUDA_CHECK(cudaMemcpy(matrices_.get() + static_cast<std::size_t>(index) * n, m.data(), n * sizeof(Real),
                               cudaMemcpyHostToDevice));
  }

  void get_matrix(int index, double* values) override {
    select();
    const std::size_t n = static_cast<std::size_t>(categories_) * S * S;
    std::vector<Real> m(n);
    CUDP_CUDA_CHECK(cudaMemcpy(m.data(), matrices_.get() + static_cast<std::size_t>(index) * n, n * sizeof(Real),
                               cudaMemcpyDeviceToHost));
    std::copy(m.begin(), m.end(), values);
  }

  void prune(int partition, const std::vector<cudp::tiers::PruningOperation>& operations) override {
    select();
    operations_.upload(operations);
    CUDP_CUDA_CHECK(cudp::tiers::launch_pruning<Policy>(tuning_, view(partition), operations_.get(),
                                                        static_cast<int>(operations.size()), 0));
  }

  void site_log_likelihoods(const std::vector<SiteRequest>& requests, double* sites) override {
    select();
    std::vector<SiteTerm> terms;
    for (const SiteRequest& r : requests) terms.insert(terms.end(), r.terms.begin(), r.terms.end());
    terms_.upload(terms);
    std::size_t first_term = 0;
    for (const SiteRequest& r : requests) {
      const auto b = view(r.partition);
      const int start = layout_.start[static_cast<std::size_t>(r.partition)];
      constexpr int threads = 128;
      if (b.patterns > 0)
        site_log_likelihood_kernel<Policy><<<(b.patterns + threads - 1) / threads, threads>>>(
            b, terms_.get() + first_term, static_cast<int>(r.terms.size()), weights_.get(), frequencies_.get(),
            sites_.get() + start);
      CUDP_CUDA_CHECK(cudaGetLastError());
      first_term += r.terms.size();
    }
    for (const SiteRequest& r : requests) {
      const int start = layout_.start[static_cast<std::size_t>(r.partition)];
      CUDP_CUDA_CHECK(cudaMemcpy(sites + start, sites_.get() + start,
                                 static_cast<std::size_t>(layout_.size(r.partition)) * sizeof(double),
                                 cudaMemcpyDeviceToHost));
    }
  }

 private:
  void select() const { CUDP_CUDA_CHECK(cudaSetDevice(device_)); }

  // An empty buffer has no allocation to set.
  static void fill(void* p, int value, std::size_t bytes) {
    if (bytes > 0) CUDP_CUDA_CHECK(cudaMemset(p, value, bytes));
  }

  Real* slot_block(int q, int slot) const {
    return partials_.get() + layout_.partial_offset(q) +
           static_cast<std::size_t>(slot) * categories_ * static_cast<std::size_t>(layout_.size(q)) * S;
  }

  cudp::tiers::PruningBuffers<Real> view(int partition) const {
    return partition_view<Real>(layout_, partition, codes_.get(), partials_.get(), exponents_.get(), matrices_.get());
  }

  int device_;
  cudp::tiers::PruningTuning tuning_;
  int categories_;
  Layout layout_;
  cudp::engine::DeviceBuffer<std::uint8_t> codes_;
  cudp::engine::DeviceBuffer<Real> partials_, matrices_, weights_, frequencies_;
  cudp::engine::DeviceBuffer<int> exponents_;
  cudp::engine::DeviceBuffer<double> values_, vectors_, inverse_, rates_, sites_;
  cudp::engine::DeviceBuffer<MatrixRequest> requests_;
  cudp::engine::DeviceBuffer<SiteTerm> terms_;
  cudp::engine::DeviceBuffer<cudp::tiers::PruningOperation> operations_;
};

// The backend in one precision; device_single.cpp and device_double.cpp each build one, so that nvcc compiles the
// two in parallel.
std::unique_ptr<Backend> make_device_backend_single(int device, int states, const Layout& layout, int matrices,
                                                    int eigens);
std::unique_ptr<Backend> make_device_backend_double(int device, int states, const Layout& layout, int matrices,
                                                    int eigens);

}  // namespace cudp_beagle
