#include "instance.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cudp_beagle {

namespace {

Failure out_of_range() { return {BEAGLE_ERROR_OUT_OF_RANGE, ""}; }

}  // namespace

Instance::Instance(const Dimensions& d, bool transposed, std::unique_ptr<Backend> backend)
    : d_(d), transposed_(transposed), backend_(std::move(backend)) {
  layout_.tips = d.tips;
  layout_.slots = d.partials;
  layout_.states = d.states;
  layout_.categories = d.categories;
  layout_.start = {0, d.patterns};
  slot_of_.assign(static_cast<std::size_t>(d.partials + d.compact), -1);
  compact_.assign(static_cast<std::size_t>(d.tips), 0);
  codes_.resize(static_cast<std::size_t>(d.tips));
  tip_partials_.resize(static_cast<std::size_t>(d.tips));
  order_.resize(static_cast<std::size_t>(d.patterns));
  std::iota(order_.begin(), order_.end(), 0);
  weights_.assign(static_cast<std::size_t>(d.patterns), 1.0);
  rates_.assign(static_cast<std::size_t>(std::max(d.eigens, 1)) * static_cast<std::size_t>(d.categories), 1.0);
  sites_.assign(static_cast<std::size_t>(d.patterns), 0.0);
}

int Instance::input_buffer(int buffer) const {
  if (buffer < 0 || buffer >= static_cast<int>(slot_of_.size())) throw out_of_range();
  if (buffer < d_.tips && compact_[static_cast<std::size_t>(buffer)]) return buffer;
  const int slot = slot_of_[static_cast<std::size_t>(buffer)];
  if (slot < 0) throw out_of_range();  // never written: BEAGLE would read garbage
  return d_.tips + slot;
}

int Instance::slot_for(int buffer) {
  int& slot = slot_of_[static_cast<std::size_t>(buffer)];
  if (slot < 0) {
    // As many buffers hold partials as BEAGLE allocates partials for (partialsBufferCount).
    if (next_slot_ >= d_.partials) throw Failure{BEAGLE_ERROR_OUT_OF_RANGE, ""};
    slot = next_slot_++;
  }
  return slot;
}

int Instance::output_buffer(int buffer) {
  if (buffer < 0 || buffer >= static_cast<int>(slot_of_.size())) throw out_of_range();
  if (buffer < d_.tips && compact_[static_cast<std::size_t>(buffer)]) throw out_of_range();
  return d_.tips + slot_for(buffer);
}

int Instance::model_index(int index) const {
  if (index < 0 || index >= std::max(d_.eigens, 1)) throw out_of_range();
  return index;
}

int Instance::matrix_index(int index) const {
  if (index < 0 || index >= d_.matrices) throw out_of_range();
  return index;
}

void Instance::check_scale(int index, bool none_allowed) const {
  if (index == BEAGLE_OP_NONE && none_allowed) return;
  if (index < 0 || index >= d_.scales) throw out_of_range();
}

void Instance::check_partition(int partition) const {
  if (partition < 0 || partition >= layout_.partitions()) throw out_of_range();
}

std::vector<double> Instance::replicated(const double* pattern_major) const {
  const auto s = static_cast<std::size_t>(d_.states), n = static_cast<std::size_t>(d_.patterns);
  std::vector<double> out(static_cast<std::size_t>(d_.categories) * n * s);
  for (std::size_t c = 0; c < static_cast<std::size_t>(d_.categories); ++c)
    for (std::size_t p = 0; p < n; ++p)
      std::copy_n(pattern_major + static_cast<std::size_t>(order_[p]) * s, s, out.begin() + (c * n + p) * s);
  return out;
}

void Instance::push_tip(int tip) {
  const auto t = static_cast<std::size_t>(tip);
  if (compact_[t]) {
    std::vector<std::uint8_t> codes(static_cast<std::size_t>(d_.patterns));
    for (std::size_t p = 0; p < codes.size(); ++p) codes[p] = codes_[t][static_cast<std::size_t>(order_[p])];
    backend_->set_codes(tip, codes);
  } else if (!tip_partials_[t].empty()) {
    backend_->set_partials(slot_of_[t], replicated(tip_partials_[t].data()));
  }
}

void Instance::set_tip_states(int tip, const int* states) {
  if (tip < 0 || tip >= d_.tips) throw out_of_range();
  const auto t = static_cast<std::size_t>(tip);
  if (!compact_[t]) {
    if (compact_count_ >= d_.compact) throw out_of_range();  // BEAGLE has compactBufferCount of them
    ++compact_count_;
    compact_[t] = 1;
  }
  // BEAGLE reads any value outside [0, states) as missing data, which is the tiers' code `states`.
  codes_[t].resize(static_cast<std::size_t>(d_.patterns));
  for (std::size_t p = 0; p < codes_[t].size(); ++p)
    codes_[t][p] = static_cast<std::uint8_t>(states[p] >= 0 && states[p] < d_.states ? states[p] : d_.states);
  tip_partials_[t].clear();
  push_tip(tip);
}

void Instance::set_tip_partials(int tip, const double* partials) {
  if (tip < 0 || tip >= d_.tips) throw out_of_range();
  const auto t = static_cast<std::size_t>(tip);
  if (compact_[t]) {
    compact_[t] = 0;
    --compact_count_;
  }
  slot_for(tip);
  tip_partials_[t].assign(partials, partials + static_cast<std::size_t>(d_.patterns) * d_.states);
  codes_[t].clear();
  push_tip(tip);
}

void Instance::set_partials(int buffer, const double* partials) {
  if (buffer < 0 || buffer >= static_cast<int>(slot_of_.size())) throw out_of_range();
  if (buffer < d_.tips) {
    const auto t = static_cast<std::size_t>(buffer);
    if (compact_[t]) {
      compact_[t] = 0;
      --compact_count_;
    }
    codes_[t].clear();
    tip_partials_[t].clear();
  }
  const int slot = slot_for(buffer);
  // [category][pattern][state] in the caller's order.
  const auto s = static_cast<std::size_t>(d_.states), n = static_cast<std::size_t>(d_.patterns);
  std::vector<double> values(static_cast<std::size_t>(d_.categories) * n * s);
  for (std::size_t c = 0; c < static_cast<std::size_t>(d_.categories); ++c)
    for (std::size_t p = 0; p < n; ++p)
      std::copy_n(partials + (c * n + static_cast<std::size_t>(order_[p])) * s, s, values.begin() + (c * n + p) * s);
  backend_->set_partials(slot, values);
}

void Instance::get_partials(int buffer, int scale, double* partials) {
  check_scale(scale, true);
  const int index = input_buffer(buffer);
  if (index < d_.tips) throw out_of_range();  // BEAGLE has no partials for a compact tip either
  std::vector<double> values;
  std::vector<int> exponents;
  backend_->get_partials(index - d_.tips, values, exponents);
  // The caller sees scale factors of 1, so the partials it gets back are the true ones.
  const auto s = static_cast<std::size_t>(d_.states), n = static_cast<std::size_t>(d_.patterns);
  for (std::size_t c = 0; c < static_cast<std::size_t>(d_.categories); ++c)
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t x = 0; x < s; ++x)
        partials[(c * n + static_cast<std::size_t>(order_[p])) * s + x] =
            std::ldexp(values[(c * n + p) * s + x], exponents[p]);
}

void Instance::set_eigen(int index, const double* vectors, const double* inverse, const double* values) {
  model_index(index);
  if (!transposed_) {
    backend_->set_eigen(index, vectors, inverse, values);
    return;
  }
  const auto s = static_cast<std::size_t>(d_.states);
  std::vector<double> standard(s * s);
  for (std::size_t k = 0; k < s; ++k)
    for (std::size_t j = 0; j < s; ++j) standard[k * s + j] = inverse[j * s + k];
  backend_->set_eigen(index, vectors, standard.data(), values);
}

void Instance::set_frequencies(int index, const double* frequencies) {
  backend_->set_frequencies(model_index(index), frequencies);
}

void Instance::set_category_weights(int index, const double* weights) {
  backend_->set_category_weights(model_index(index), weights);
}

void Instance::set_category_rates(int index, const double* rates) {
  std::copy_n(rates, d_.categories, rates_.begin() + static_cast<std::ptrdiff_t>(model_index(index)) * d_.categories);
}

void Instance::set_pattern_weights(const double* weights) {
  for (std::size_t p = 0; p < weights_.size(); ++p) weights_[p] = weights[order_[p]];
}

void Instance::set_pattern_partitions(int count, const int* partitions) {
  if (count < 1) throw out_of_range();
  for (int p = 0; p < d_.patterns; ++p)
    if (partitions[p] < 0 || partitions[p] >= count) throw out_of_range();
  // Back to the caller's order, then grouped by partition, each group in the caller's order.
  std::vector<double> weights(static_cast<std::size_t>(d_.patterns));
  for (std::size_t p = 0; p < weights.size(); ++p) weights[static_cast<std::size_t>(order_[p])] = weights_[p];
  std::iota(order_.begin(), order_.end(), 0);
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return partitions[a] < partitions[b]; });
  layout_.start.assign(static_cast<std::size_t>(count) + 1, 0);
  for (int p = 0; p < d_.patterns; ++p) ++layout_.start[static_cast<std::size_t>(partitions[p]) + 1];
  for (std::size_t q = 1; q < layout_.start.size(); ++q) layout_.start[q] += layout_.start[q - 1];
  for (std::size_t p = 0; p < weights.size(); ++p) weights_[p] = weights[static_cast<std::size_t>(order_[p])];
  // As in BEAGLE, the data are regrouped (tips, weights) and partials computed before are not.
  backend_->relayout(layout_);
  for (int tip = 0; tip < d_.tips; ++tip) push_tip(tip);
}

void Instance::update_matrices(const int* eigens, const int* rates, bool one_eigen, const int* matrices,
                               const int* first_derivatives, const int* second_derivatives, const double* lengths,
                               int count) {
  if (first_derivatives != nullptr || second_derivatives != nullptr)
    throw Failure{BEAGLE_ERROR_NO_IMPLEMENTATION, "derivative matrices are not supported"};
  if (count < 0) throw out_of_range();
  std::vector<MatrixRequest> requests(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    requests[static_cast<std::size_t>(i)] = {matrix_index(matrices[i]), model_index(eigens[one_eigen ? 0 : i]),
                                             rates == nullptr ? 0 : model_index(rates[i]), lengths[i]};
  if (count > 0) backend_->update_matrices(requests, rates_);
}

void Instance::set_matrix(int index, const double* values) { backend_->set_matrix(matrix_index(index), values); }

void Instance::get_matrix(int index, double* values) { backend_->get_matrix(matrix_index(index), values); }

cudp::tiers::PruningOperation Instance::convert(const BeagleOperation& op) {
  check_scale(op.destinationScaleWrite, true);
  check_scale(op.destinationScaleRead, true);
  cudp::tiers::PruningOperation out{};
  out.child[0] = input_buffer(op.child1Partials);
  out.child[1] = input_buffer(op.child2Partials);
  out.matrix[0] = matrix_index(op.child1TransitionMatrix);
  out.matrix[1] = matrix_index(op.child2TransitionMatrix);
  out.destination = output_buffer(op.destinationPartials);
  return out;
}

void Instance::update_partials(const BeagleOperation* operations, int count, int cumulative_scale) {
  check_scale(cumulative_scale, true);
  if (count < 0) throw out_of_range();
  std::vector<cudp::tiers::PruningOperation> ops(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) ops[static_cast<std::size_t>(i)] = convert(operations[i]);
  if (ops.empty()) return;
  for (int q = 0; q < layout_.partitions(); ++q)
    if (layout_.size(q) > 0) backend_->prune(q, ops);
}

void Instance::update_partials_by_partition(const BeagleOperationByPartition* operations, int count) {
  if (count < 0) throw out_of_range();
  // Partitions share no pattern, so each one's operations (in the caller's order) make a traversal of their own.
  std::vector<std::vector<cudp::tiers::PruningOperation>> ops(static_cast<std::size_t>(layout_.partitions()));
  for (int i = 0; i < count; ++i) {
    const BeagleOperationByPartition& op = operations[i];
    check_partition(op.partition);
    check_scale(op.cumulativeScaleIndex, true);
    const BeagleOperation plain{op.destinationPartials,   op.destinationScaleWrite,  op.destinationScaleRead,
                                op.child1Partials,        op.child1TransitionMatrix, op.child2Partials,
                                op.child2TransitionMatrix};
    ops[static_cast<std::size_t>(op.partition)].push_back(convert(plain));
  }
  for (int q = 0; q < layout_.partitions(); ++q)
    if (!ops[static_cast<std::size_t>(q)].empty() && layout_.size(q) > 0)
      backend_->prune(q, ops[static_cast<std::size_t>(q)]);
}

void Instance::get_scale_factors(int index, double* factors, bool raw) const {
  check_scale(index, false);
  std::fill_n(factors, d_.patterns, raw ? 1.0 : 0.0);
}

int Instance::log_likelihood(const int* parents, const int* children, const int* matrices, const int* weights,
                             const int* frequencies, const int* scales, const int* partitions, int partition_count,
                             int count, double* total, double* by_partition) {
  if (count < 1) throw out_of_range();
  const int groups = partitions == nullptr ? 1 : partition_count;
  if (groups < 1) throw out_of_range();
  std::vector<SiteRequest> requests;
  std::vector<int> group_of;  // request -> entry of by_partition
  for (int k = 0; k < groups; ++k) {
    std::vector<SiteTerm> terms(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      const int e = i * groups + k;
      SiteTerm& t = terms[static_cast<std::size_t>(i)];
      t.parent = input_buffer(parents[e]);
      if (t.parent < d_.tips)
        throw Failure{BEAGLE_ERROR_NO_IMPLEMENTATION,
                      "a root or edge parent holding tip states is not supported (set it with beagleSetTipPartials)"};
      t.child = children == nullptr ? -1 : input_buffer(children[e]);
      t.matrix = children == nullptr ? -1 : matrix_index(matrices[e]);
      t.weights = model_index(weights[e]);
      t.frequencies = model_index(frequencies[e]);
      if (scales != nullptr) check_scale(scales[e], true);
    }
    if (partitions == nullptr) {
      for (int q = 0; q < layout_.partitions(); ++q) {
        requests.push_back({q, terms});
        group_of.push_back(k);
      }
    } else {
      check_partition(partitions[k]);
      requests.push_back({partitions[k], std::move(terms)});
      group_of.push_back(k);
    }
  }
  backend_->site_log_likelihoods(requests, sites_.data());
  std::vector<double> sums(static_cast<std::size_t>(groups), 0.0);
  for (std::size_t r = 0; r < requests.size(); ++r) {
    const int q = requests[r].partition;
    double sum = 0;
    for (int p = layout_.start[static_cast<std::size_t>(q)]; p < layout_.start[static_cast<std::size_t>(q) + 1]; ++p)
      sum += weights_[static_cast<std::size_t>(p)] * sites_[static_cast<std::size_t>(p)];
    sums[static_cast<std::size_t>(group_of[r])] += sum;
  }
  last_ = 0;
  bool finite = true;
  for (int k = 0; k < groups; ++k) {
    const double s = sums[static_cast<std::size_t>(k)];
    if (by_partition != nullptr) by_partition[k] = s;
    finite = finite && std::isfinite(s);
    last_ += s;
  }
  *total = last_;
  return finite && std::isfinite(last_) ? BEAGLE_SUCCESS : BEAGLE_ERROR_FLOATING_POINT;
}

void Instance::get_site_log_likelihoods(double* out) const {
  for (std::size_t p = 0; p < sites_.size(); ++p) out[order_[p]] = sites_[p];
}

}  // namespace cudp_beagle
