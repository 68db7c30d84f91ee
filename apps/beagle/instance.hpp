#pragma once
// One BEAGLE instance: BEAGLE's buffers, indices and partitions mapped onto a backend that runs cudp's pruning
// tiers. Everything here is the same for the host and the GPU: checking the caller's indices, numbering the
// buffers as the tiers do (backend.hpp), grouping the patterns by partition, and the scaling contract.
//
// Scaling. The tiers rescale a pattern by an exact power of two whenever its largest value gets small, and keep a
// cumulative exponent per buffer and pattern (the buffer's whole subtree), so a likelihood read from any buffers is
// their values times 2^(sum of their exponents). This library therefore never has a scale factor to hand out: every
// scale buffer holds log factor 0 (raw factor 1), accumulating, removing and resetting them change nothing, and the
// root and edge log-likelihoods add the buffers' own exponents. A caller that follows BEAGLE's rules (cumulative
// scale buffers at the root) gets the same log-likelihoods as from BEAGLE, rescaled or not.
#include <libhmsbeagle/beagle.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"

namespace cudp_beagle {

// A call that fails: the BEAGLE code it returns and, for what this library does not support, the one line it
// prints to stderr (empty for a caller's mistake, which BEAGLE too only reports by its code).
struct Failure {
  int code;
  std::string message;
};

struct Dimensions {
  int tips = 0, partials = 0, compact = 0, states = 0, patterns = 0, eigens = 0, matrices = 0, categories = 0,
      scales = 0;
};

class Instance {
 public:
  // transposed: the caller passes inverse eigenvectors transposed (BEAGLE_FLAG_INVEVEC_TRANSPOSED).
  Instance(const Dimensions& d, bool transposed, std::unique_ptr<Backend> backend);

  const Dimensions& dimensions() const { return d_; }

  void set_threads(int threads) { backend_->set_threads(threads); }
  void set_tip_states(int tip, const int* states);
  void set_tip_partials(int tip, const double* partials);
  void set_partials(int buffer, const double* partials);
  void get_partials(int buffer, int scale, double* partials);
  void set_eigen(int index, const double* vectors, const double* inverse, const double* values);
  void set_frequencies(int index, const double* frequencies);
  void set_category_weights(int index, const double* weights);
  void set_category_rates(int index, const double* rates);
  void set_pattern_weights(const double* weights);
  void set_pattern_partitions(int count, const int* partitions);

  // eigens and rates: one per matrix, or (rates == nullptr) rate buffer 0 for all; derivatives are not supported.
  void update_matrices(const int* eigens, const int* rates, bool one_eigen, const int* matrices,
                       const int* first_derivatives, const int* second_derivatives, const double* lengths, int count);
  void set_matrix(int index, const double* values);
  void get_matrix(int index, double* values);

  void update_partials(const BeagleOperation* operations, int count, int cumulative_scale);
  void update_partials_by_partition(const BeagleOperationByPartition* operations, int count);

  // A scale buffer index as BEAGLE takes it (BEAGLE_OP_NONE allowed where `none_allowed`).
  void check_scale(int index, bool none_allowed) const;
  void check_partition(int partition) const;
  void get_scale_factors(int index, double* factors, bool raw) const;

  // Root (children == nullptr) or edge log-likelihood. Without partitions, every pattern and `count` terms; with
  // partitions, term i of partition k is entry i * partition_count + k of each list, and by_partition[k] its sum.
  // Returns BEAGLE_ERROR_FLOATING_POINT, with the sums written, when one of them is not finite.
  int log_likelihood(const int* parents, const int* children, const int* matrices, const int* weights,
                     const int* frequencies, const int* scales, const int* partitions, int partition_count, int count,
                     double* total, double* by_partition);
  double last_log_likelihood() const { return last_; }
  void get_site_log_likelihoods(double* out) const;

 private:
  int input_buffer(int buffer) const;  // as the tiers number it; the buffer must hold something
  int output_buffer(int buffer);       // as the tiers number it, taking a slot for it if it has none
  int slot_for(int buffer);
  int model_index(int index) const;  // eigen, weight, frequency and rate buffers
  int matrix_index(int index) const;
  std::vector<double> replicated(const double* pattern_major) const;  // [pattern][state] -> [category][...]
  void push_tip(int tip);
  cudp::tiers::PruningOperation convert(const BeagleOperation& op);

  Dimensions d_;
  bool transposed_;
  std::unique_ptr<Backend> backend_;
  Layout layout_;
  std::vector<int> slot_of_;  // [buffer] or -1
  int next_slot_ = 0;
  std::vector<char> compact_;  // [tip]: holds codes
  int compact_count_ = 0;
  std::vector<std::vector<std::uint8_t>> codes_;   // [tip][pattern], the caller's order, to regroup on partitions
  std::vector<std::vector<double>> tip_partials_;  // [tip][pattern][state], the same
  std::vector<int> order_;                         // internal pattern -> the caller's
  std::vector<double> weights_;                    // [internal pattern]
  std::vector<double> rates_;                      // [rate buffer][category]
  std::vector<double> sites_;                      // [internal pattern]
  double last_ = 0;
};

}  // namespace cudp_beagle
