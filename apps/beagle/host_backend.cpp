// The host backend: buffers in host memory, traversals on cudp's host pruning tier.
#include <algorithm>
#include <cmath>
#include <cudp/recurrences/felsenstein.hpp>
#include <cudp/host/aligned_allocator.hpp>
#include <cudp/host/host_cores.hpp>
#include <cudp/tiers/pruning_host.hpp>
#include <thread>

#include "site_likelihood.hpp"
#include "states.hpp"

namespace cudp_beagle {

namespace {

template <class Real, int S>
class HostBackend final : public Backend {
  using Policy = cudp::recurrences::FelsensteinPruning<Real, S>;

 public:
  HostBackend(const Layout& layout, int matrices, int eigens)
      : categories_(layout.categories),
        matrices_(static_cast<std::size_t>(matrices) * categories_ * S * S),
        values_(static_cast<std::size_t>(eigens) * S),
        vectors_(static_cast<std::size_t>(eigens) * S * S),
        inverse_(static_cast<std::size_t>(eigens) * S * S),
        weights_(static_cast<std::size_t>(eigens) * categories_, Real(1) / Real(categories_)),
        frequencies_(static_cast<std::size_t>(eigens) * S, Real(1) / Real(S)) {
    relayout(layout);
  }

  void relayout(const Layout& layout) override {
    layout_ = layout;
    codes_.assign(layout.codes(), static_cast<std::uint8_t>(S));
    partials_.assign(layout.partials(), Real(0));
    exponents_.assign(layout.exponents(), 0);
  }

  void set_codes(int tip, const std::vector<std::uint8_t>& codes) override {
    for (int q = 0; q < layout_.partitions(); ++q) {
      const std::size_t n = static_cast<std::size_t>(layout_.size(q));
      std::copy_n(
          codes.begin() + layout_.start[static_cast<std::size_t>(q)], n,
          codes_.begin() + static_cast<std::ptrdiff_t>(layout_.code_offset(q) + static_cast<std::size_t>(tip) * n));
    }
  }

  void set_partials(int slot, const std::vector<double>& values) override {
    const auto total = static_cast<std::size_t>(layout_.patterns());
    for (int q = 0; q < layout_.partitions(); ++q) {
      const auto n = static_cast<std::size_t>(layout_.size(q));
      const auto first = static_cast<std::size_t>(layout_.start[static_cast<std::size_t>(q)]);
      Real* block = partials_.data() + layout_.partial_offset(q) + static_cast<std::size_t>(slot) * categories_ * n * S;
      for (std::size_t c = 0; c < static_cast<std::size_t>(categories_); ++c)
        for (std::size_t p = 0; p < n; ++p)
          for (std::size_t x = 0; x < S; ++x)
            block[(c * n + p) * S + x] = static_cast<Real>(values[(c * total + first + p) * S + x]);
      std::fill_n(exponents_.begin() + static_cast<std::ptrdiff_t>(layout_.exponent_offset(q) + slot * n), n, 0);
    }
  }

  void get_partials(int slot, std::vector<double>& values, std::vector<int>& exponents) override {
    const auto total = static_cast<std::size_t>(layout_.patterns());
    values.resize(static_cast<std::size_t>(categories_) * total * S);
    exponents.resize(total);
    for (int q = 0; q < layout_.partitions(); ++q) {
      const auto n = static_cast<std::size_t>(layout_.size(q));
      const auto first = static_cast<std::size_t>(layout_.start[static_cast<std::size_t>(q)]);
      const Real* block =
          partials_.data() + layout_.partial_offset(q) + static_cast<std::size_t>(slot) * categories_ * n * S;
      for (std::size_t c = 0; c < static_cast<std::size_t>(categories_); ++c)
        for (std::size_t p = 0; p < n; ++p)
          for (std::size_t x = 0; x < S; ++x)
            values[(c * total + first + p) * S + x] = static_cast<double>(block[(c * n + p) * S + x]);
      std::copy_n(exponents_.begin() + static_cast<std::ptrdiff_t>(layout_.exponent_offset(q) + slot * n), n,
                  exponents.begin() + static_cast<std::ptrdiff_t>(first));
    }
  }

  void set_eigen(int index, const double* vectors, const double* inverse, const double* values) override {
    const auto e = static_cast<std::size_t>(index);
    std::copy_n(values, S, values_.begin() + static_cast<std::ptrdiff_t>(e * S));
    std::copy_n(vectors, S * S, vectors_.begin() + static_cast<std::ptrdiff_t>(e * S * S));
    std::copy_n(inverse, S * S, inverse_.begin() + static_cast<std::ptrdiff_t>(e * S * S));
  }

  void set_category_weights(int index, const double* weights) override {
    for (int c = 0; c < categories_; ++c)
      weights_[static_cast<std::size_t>(index) * categories_ + c] = static_cast<Real>(weights[c]);
  }

  void set_frequencies(int index, const double* frequencies) override {
    for (int s = 0; s < S; ++s)
      frequencies_[static_cast<std::size_t>(index) * S + s] = static_cast<Real>(frequencies[s]);
  }

  void update_matrices(const std::vector<MatrixRequest>& requests, const std::vector<double>& rates) override {
    double scaled[S];
    for (const MatrixRequest& r : requests)
      for (int c = 0; c < categories_; ++c) {
        const double t = r.length * rates[static_cast<std::size_t>(r.rates) * categories_ + c];
        const double* values = values_.data() + static_cast<std::size_t>(r.eigen) * S;
        for (int k = 0; k < S; ++k) scaled[k] = std::exp(values[k] * t);
        const double* v = vectors_.data() + static_cast<std::size_t>(r.eigen) * S * S;
        const double* w = inverse_.data() + static_cast<std::size_t>(r.eigen) * S * S;
        Real* out = matrices_.data() + (static_cast<std::size_t>(r.matrix) * categories_ + c) * S * S;
        for (int i = 0; i < S; ++i)
          for (int j = 0; j < S; ++j) out[i * S + j] = static_cast<Real>(transition_entry(S, v, w, scaled, i, j));
      }
  }

  void set_matrix(int index, const double* values) override {
    const std::size_t n = static_cast<std::size_t>(categories_) * S * S;
    std::transform(values, values + n, matrices_.begin() + static_cast<std::ptrdiff_t>(index * n),
                   [](double v) { return static_cast<Real>(v); });
  }

  void get_matrix(int index, double* values) override {
    const std::size_t n = static_cast<std::size_t>(categories_) * S * S;
    std::transform(matrices_.begin() + static_cast<std::ptrdiff_t>(index * n),
                   matrices_.begin() + static_cast<std::ptrdiff_t>((index + 1) * n), values,
                   [](Real v) { return static_cast<double>(v); });
  }

  void prune(int partition, const std::vector<cudp::tiers::PruningOperation>& operations) override {
    const auto b = view(partition);
    const std::size_t work = static_cast<std::size_t>(b.patterns) * operations.size() * categories_ * S * S * 2;
    cudp::tiers::prune_on_host<Policy>(b, operations, threads_for(work));
  }

  void site_log_likelihoods(const std::vector<SiteRequest>& requests, double* sites) override {
    for (const SiteRequest& r : requests) {
      const auto b = view(r.partition);
      double* out = sites + layout_.start[static_cast<std::size_t>(r.partition)];
#if defined(CUDP_HAS_PRUNING_LANES)
      // The terms' values a block of patterns at a time, to the same bits as site_term_value's: an edge term's
      // S x S products per pattern in the vector lanes, a root term's sums a category at a time.
      constexpr int block = 256;
      const auto edge_block = cudp::tiers::pruning_lanes::edge_block_for_this_host<Policy, Real>();
      const std::size_t terms = r.terms.size();
      term_values_.resize(terms * block);
      for (int first = 0; first < b.patterns; first += block) {
        const int last = std::min(b.patterns, first + block);
        for (std::size_t i = 0; i < terms; ++i) {
          const SiteTerm& t = r.terms[i];
          Real* values = term_values_.data() + i * block;
          if (t.child < 0) {
            root_values(b, t, first, last, values);
            continue;
          }
          const cudp::tiers::pruning_lanes::EdgeSum<Real> edge{
              t.parent, t.child, t.matrix, frequencies_.data() + static_cast<std::size_t>(t.frequencies) * S,
              weights_.data() + static_cast<std::size_t>(t.weights) * categories_};
          edge_block(b, edge, first, last, values);
        }
        for (int p = first; p < last; ++p) {
          SiteSum sum;
          for (std::size_t i = 0; i < terms; ++i) {
            const double value = static_cast<double>(term_values_[i * block + static_cast<std::size_t>(p - first)]);
            if (!sum.add(value, site_term_exponent(b, r.terms[i], p))) break;
          }
          out[p] = sum.log_likelihood();
        }
      }
#else
      for (int p = 0; p < b.patterns; ++p)
        out[p] = site_log_likelihood<Policy>(b, r.terms.data(), static_cast<int>(r.terms.size()), weights_.data(),
                                             frequencies_.data(), p);
#endif
    }
  }

  void set_threads(int threads) override { threads_ = threads; }

 private:
  // root_pattern for patterns [first, last) into values[0, last - first), the categories added in their order.
  void root_values(const cudp::tiers::PruningBuffers<Real>& b, const SiteTerm& t, int first, int last, Real* values) {
    const Real* weights = weights_.data() + static_cast<std::size_t>(t.weights) * categories_;
    const Real* frequencies = frequencies_.data() + static_cast<std::size_t>(t.frequencies) * S;
    std::fill(values, values + (last - first), Real(0));
    for (int c = 0; c < categories_; ++c) {
      const Real* root = b.partial(t.parent, c, first);
      for (int p = 0; p < last - first; ++p) values[p] += weights[c] * Policy::at_root(frequencies, root + p * S);
    }
  }

  cudp::tiers::PruningBuffers<Real> view(int partition) {
    return partition_view<Real>(layout_, partition, codes_.data(), partials_.data(), exponents_.data(),
                                matrices_.data());
  }

  // parallel_for starts its threads anew on every call, which costs tens of microseconds each (more when the cores
  // are busy), as much as about 2^21 units of `work` (a multiply-add each, about a third of a nanosecond): MrBayes'
  // moves touch a few nodes of a few hundred patterns, which one thread does sooner than several would start.
  int threads_for(std::size_t work) const {
    const int most = threads_ > 0 ? threads_ : cudp::host::usable_cores();
    const std::size_t wanted = work >> 21;
    return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(most), wanted)));
  }

  int categories_;
  Layout layout_;
  int threads_ = 0;
  std::vector<std::uint8_t> codes_;
  std::vector<Real, cudp::host::CacheLineAllocator<Real>> partials_;  // read and written in vector lanes
  std::vector<Real> matrices_;
  std::vector<int> exponents_;
  std::vector<double> values_, vectors_, inverse_;
  std::vector<Real> weights_, frequencies_;
  std::vector<Real> term_values_;  // site_log_likelihoods' scratch: the terms' values, [term][pattern of a block]
};

}  // namespace

std::unique_ptr<Backend> make_host_backend(int states, bool single, const Layout& layout, int matrices, int eigens) {
  if (single) return make_backend<HostBackend, float>(HostStates{}, states, layout, matrices, eigens);
  return make_backend<HostBackend, double>(HostStates{}, states, layout, matrices, eigens);
}

const std::vector<int>& host_state_counts() {
  static const std::vector<int> counts = HostStates::values();
  return counts;
}

}  // namespace cudp_beagle
