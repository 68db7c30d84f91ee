#pragma once
// What a BEAGLE instance asks of the memory its buffers live in, the host's or a GPU's. The instance (instance.hpp)
// checks the caller's indices, numbers the buffers the way the pruning tiers do and keeps the patterns grouped by
// partition; a backend only stores and computes.
//
// Buffer numbering, as tiers::PruningBuffers reads it: BEAGLE's tips keep their numbers [0, tips) and hold one code
// per pattern (set by beagleSetTipStates); every buffer that holds partials (internal nodes, and tips set by
// beagleSetTipPartials, replicated over the categories) gets a slot s and is buffer tips + s.
#include <cstddef>
#include <cstdint>
#include <cudp/tiers/pruning_buffers.hpp>
#include <memory>
#include <string>
#include <vector>

namespace cudp_beagle {

// Each partition's patterns are contiguous (the instance's internal order) and have a block of their own in every
// array, laid out as PruningBuffers wants it for that partition alone, so that a partition's traversal is one call
// of a tier: codes [tip][pattern], partials [slot][category][pattern][state], exponents [slot][pattern].
struct Layout {
  int tips = 0, slots = 0, states = 0, categories = 0;
  std::vector<int> start{0, 0};  // where each partition starts in the internal order; the last entry is the total

  int partitions() const { return static_cast<int>(start.size()) - 1; }
  int patterns() const { return start.back(); }
  int size(int q) const { return start[static_cast<std::size_t>(q) + 1] - start[static_cast<std::size_t>(q)]; }
  std::size_t code_offset(int q) const { return static_cast<std::size_t>(tips) * first(q); }
  std::size_t partial_offset(int q) const {
    return static_cast<std::size_t>(slots) * static_cast<std::size_t>(categories) * static_cast<std::size_t>(states) *
           first(q);
  }
  std::size_t exponent_offset(int q) const { return static_cast<std::size_t>(slots) * first(q); }
  std::size_t codes() const { return code_offset(partitions()); }
  std::size_t partials() const { return partial_offset(partitions()); }
  std::size_t exponents() const { return exponent_offset(partitions()); }

 private:
  std::size_t first(int q) const { return static_cast<std::size_t>(start[static_cast<std::size_t>(q)]); }
};

// Partition q's patterns as a tier sees them.
template <class Real>
cudp::tiers::PruningBuffers<Real> partition_view(const Layout& l, int q, const std::uint8_t* codes, Real* partials,
                                                 int* exponents, const Real* matrices) {
  cudp::tiers::PruningBuffers<Real> b;
  b.patterns = l.size(q);
  b.categories = l.categories;
  b.states = l.states;
  b.tips = l.tips;
  b.tip_codes = codes + l.code_offset(q);
  b.code_sets = nullptr;  // BEAGLE's compact tips are one state or none; ambiguous tips come as partials
  b.partials = partials + l.partial_offset(q);
  b.exponents = exponents + l.exponent_offset(q);
  b.matrices = matrices;
  return b;
}

// A transition matrix to make: matrix <- V exp(Lambda t r_c) V^-1 for each category c, with V and Lambda from
// eigen buffer `eigen` and r from category-rate buffer `rates`.
struct MatrixRequest {
  int matrix, eigen, rates;
  double length;
};

// One summand of a pattern's likelihood: the partials of `parent` at a root (child < 0) or joined across an edge
// with `child` through `matrix` (buffers as numbered above), weighed by category-weight buffer `weights` and
// state-frequency buffer `frequencies`. Several terms (BEAGLE's count > 1, MrBayes' omega categories) add up.
struct SiteTerm {
  int parent, child, matrix, weights, frequencies;
};

struct SiteRequest {
  int partition;
  std::vector<SiteTerm> terms;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // The patterns were regrouped: every array takes the new layout; partials and exponents start at zero.
  virtual void relayout(const Layout& layout) = 0;
  // A tip's codes for every pattern, internal order.
  virtual void set_codes(int tip, const std::vector<std::uint8_t>& codes) = 0;
  // A slot's values [category][pattern][state] (internal order, each partition's patterns in turn), exponents 0.
  virtual void set_partials(int slot, const std::vector<double>& values) = 0;
  // A slot's values as set_partials takes them, and its exponents [pattern].
  virtual void get_partials(int slot, std::vector<double>& values, std::vector<int>& exponents) = 0;

  virtual void set_eigen(int index, const double* vectors, const double* inverse, const double* values) = 0;
  virtual void set_category_weights(int index, const double* weights) = 0;
  virtual void set_frequencies(int index, const double* frequencies) = 0;
  // rates: every category-rate buffer, [buffer][category].
  virtual void update_matrices(const std::vector<MatrixRequest>& requests, const std::vector<double>& rates) = 0;
  virtual void set_matrix(int index, const double* values) = 0;  // [category][state][state]
  virtual void get_matrix(int index, double* values) = 0;

  // A traversal of one partition's patterns, in order.
  virtual void prune(int partition, const std::vector<cudp::tiers::PruningOperation>& operations) = 0;
  // Each requested partition's per-pattern log-likelihoods into sites [pattern] (internal order).
  virtual void site_log_likelihoods(const std::vector<SiteRequest>& requests, double* sites) = 0;

  // The most host threads a traversal may use (0: all cores); backends without host threads ignore it.
  virtual void set_threads(int) {}
};

// nullptr when `states` has no build.
std::unique_ptr<Backend> make_host_backend(int states, bool single, const Layout& layout, int matrices, int eigens);

// The GPUs this build can use (none without CUDA), and a backend on one of them (nullptr when `states` has no
// build). device.cpp holds both.
struct GpuInfo {
  std::string name, description;
};
std::vector<GpuInfo> gpus();
std::unique_ptr<Backend> make_device_backend(int device, int states, bool single, const Layout& layout, int matrices,
                                             int eigens);

// The state counts built, for the documentation of a failed instance.
const std::vector<int>& host_state_counts();
const std::vector<int>& device_state_counts();

}  // namespace cudp_beagle
