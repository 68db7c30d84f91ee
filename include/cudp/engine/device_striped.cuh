#pragma once
// Running the striped Plan7 filter policies on the GPU: the database uploaded once, then per model the striped
// tables, a length-sorted target list, and one kernel of the menu shape chosen for the model size.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include "../tiers/striped_rows.cuh"
#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "plan7_striped_tables.hpp"
#include "sequences.hpp"
#include "striped_tuning.hpp"

namespace cudp::engine {

// Database residues and offsets resident on the device, shared by every model of a run.
class DeviceStripedDatabase {
 public:
  explicit DeviceStripedDatabase(const SequencesView& db) : count_(db.count), lengths_(db.count) {
    for (std::size_t i = 0; i < db.count; ++i) {
      lengths_[i] = db.length(i);
      max_length_ = std::max(max_length_, lengths_[i]);
    }
    const std::uint64_t residues = db.count ? db.offsets[db.count] : 0;
    residues_.upload(db.residues, static_cast<std::size_t>(residues));
    offsets_.upload(db.offsets, db.count + 1);
    CUDP_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::size_t count() const { return count_; }
  std::uint32_t length(std::size_t i) const { return lengths_[i]; }
  std::uint32_t max_length() const { return max_length_; }
  const std::uint8_t* residues() const { return residues_.get(); }
  const std::uint64_t* offsets() const { return offsets_.get(); }

 private:
  std::size_t count_ = 0;
  std::vector<std::uint32_t> lengths_;
  std::uint32_t max_length_ = 0;
  DeviceBuffer<std::uint8_t> residues_;
  DeviceBuffer<std::uint64_t> offsets_;
};

namespace detail {

struct TargetLength {
  const std::uint64_t* offsets;
  __device__ std::uint32_t operator()(std::uint32_t id) const {
    return static_cast<std::uint32_t>(offsets[id + 1] - offsets[id]);
  }
};

template <class Policy, int G, int Q>
void launch_striped(const typename Policy::Model& md, const tiers::StripedTargets& targets,
                    typename Policy::Result* results, cudaStream_t stream) {
  constexpr int block_threads = 128;
  constexpr int groups_per_block = block_threads / G;
  int sms = 0, device = 0;
  CUDP_CUDA_CHECK(cudaGetDevice(&device));
  CUDP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t needed = (targets.count + groups_per_block - 1) / groups_per_block;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>(needed, static_cast<std::size_t>(sms) * 32));
  tiers::striped_rows_kernel<Policy, G, Q, block_threads><<<blocks, block_threads, 0, stream>>>(md, targets, results);
  CUDP_CUDA_CHECK(cudaGetLastError());
}

template <class Policy, class Menu, std::size_t... I>
void launch_striped_shape(int index, const typename Policy::Model& md, const tiers::StripedTargets& targets,
                          typename Policy::Result* results, cudaStream_t stream, std::index_sequence<I...>) {
  const bool launched = ((index == static_cast<int>(I)
                              ? (launch_striped<Policy, Menu::groups[I], Menu::segments[I]>(md, targets, results, stream), true)
                              : false) ||
                         ...);
  if (!launched) throw std::out_of_range("striped shape index " + std::to_string(index));
}

// The forced shape when it holds M nodes, else the menu's choice.
template <class Menu>
int shape_index(int forced, int M, int width) {
  if (forced >= 0 && static_cast<std::size_t>(forced) < Menu::size &&
      Menu::groups[static_cast<std::size_t>(forced)] * Menu::segments[static_cast<std::size_t>(forced)] * width >= M) {
    return forced;
  }
  return choose_striped_shape<Menu>(M, width);
}

}  // namespace detail

// Runs Policy over the database targets `ids` with the model `md` (device pointers), whose shape is Menu's entry
// `shape_index`. Results come back in the order of ids. Targets run longest first so that the last warps to
// finish hold short ones; the sort and the return to the given order run on the device (sorting the 570,000 ids of
// a 200 MB database on one host thread took 50 ms, longer than the filter).
template <class Policy, class Menu>
class DeviceStripedRunner {
 public:
  explicit DeviceStripedRunner(const DeviceStripedDatabase& db) : db_(db) {
    CUDP_CUDA_CHECK(cudaEventCreate(&start_));
    CUDP_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~DeviceStripedRunner() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  DeviceStripedRunner(const DeviceStripedRunner&) = delete;
  DeviceStripedRunner& operator=(const DeviceStripedRunner&) = delete;

  std::vector<typename Policy::Result> run(int shape_index, const typename Policy::Model& md,
                                           const std::vector<std::uint32_t>& ids) {
    const std::size_t n = ids.size();
    const auto on_stream = thrust::cuda::par.on(0);
    if (ids != last_ids_) {  // every model of a run filters the whole database: sort that list once
      given_.reserve(n);
      sorted_.reserve(n);
      positions_.reserve(n);
      lengths_.reserve(n);
      given_.upload(ids);
      std::uint32_t* given = given_.get();
      std::uint32_t* lengths = lengths_.get();
      std::uint32_t* positions = positions_.get();
      thrust::transform(on_stream, given, given + n, lengths, detail::TargetLength{db_.offsets()});
      thrust::sequence(on_stream, positions, positions + n);
      thrust::stable_sort_by_key(on_stream, lengths, lengths + n, positions, thrust::greater<std::uint32_t>());
      thrust::gather(on_stream, positions, positions + n, given, sorted_.get());
      last_ids_ = ids;
    }
    sorted_results_.reserve(n);
    results_.reserve(n);
    tiers::StripedTargets targets{db_.residues(), db_.offsets(), sorted_.get(), static_cast<std::uint32_t>(n)};
    CUDP_CUDA_CHECK(cudaEventRecord(start_));
    if (n != 0) {
      detail::launch_striped_shape<Policy, Menu>(shape_index, md, targets, sorted_results_.get(), 0,
                                                 std::make_index_sequence<Menu::size>{});
    }
    CUDP_CUDA_CHECK(cudaEventRecord(stop_));
    thrust::scatter(on_stream, sorted_results_.get(), sorted_results_.get() + n, positions_.get(), results_.get());
    std::vector<typename Policy::Result> results(n);
    results_.download(results.data(), n);
    CUDP_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    CUDP_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    kernel_ms_ += ms;
    last_kernel_ms_ = ms;
    return results;
  }
  double kernel_ms() const { return kernel_ms_; }
  double last_kernel_ms() const { return last_kernel_ms_; }

 private:
  const DeviceStripedDatabase& db_;
  std::vector<std::uint32_t> last_ids_;
  // The ids as given, sorted longest first, and each sorted entry's place in the given list.
  DeviceBuffer<std::uint32_t> given_, sorted_, positions_, lengths_;
  DeviceBuffer<typename Policy::Result> sorted_results_, results_;
  cudaEvent_t start_{}, stop_{};
  double kernel_ms_ = 0, last_kernel_ms_ = 0;
};

namespace detail {

// The filters that read the MSV tables (stripe_msv) differ only in the policy, the lanes in which it gives HMMER's
// bytes, what it reads on the device, and how its raw result becomes HMMER's answer.
struct MsvFilterKind {
  template <class L>
  using Policy = recurrences::Plan7Msv<L>;
  // HMMER's own byte arithmetic: exact for every model.
  template <class L>
  using FallbackLane = lanes::u8x4;
  static constexpr const char* name = "DeviceMsvFilter";

  template <class L>
  static bool exact_in(const bio::MsvFilterProfile& p) {
    return Policy<L>::wide_lanes_exact(p.base, p.bias);
  }
  template <class L>
  static typename Policy<L>::Model upload(const StripedMsvTables<L>& tables, DeviceBuffer<typename L::word>& costs,
                                          DeviceBuffer<std::uint8_t>& moves) {
    costs.upload(tables.costs);
    moves.upload(tables.move_costs);
    return tables.model(costs.get(), moves.get());
  }
  template <class L, class Result>
  static bio::FilterResult answer(const bio::MsvFilterProfile& p, const StripedMsvTables<L>& tables,
                                  std::uint32_t length, const Result& r) {
    return msv_filter_result(p, tables, length, r);
  }
};

struct SsvFilterKind {
  template <class L>
  using Policy = recurrences::Plan7Ssv<L>;
  // Never taken (see exact_in); L itself, so that no second set of kernels is compiled.
  template <class L>
  using FallbackLane = L;
  static constexpr const char* name = "DeviceSsvFilter";

  // No B state feeds back into the diagonals, so the wide lanes' missing top clamp (or their wrap) can only act
  // after the best h has decided the answer (recurrences/plan7_ssv.hpp): every lane is exact for every model.
  template <class L>
  static bool exact_in(const bio::MsvFilterProfile&) {
    return true;
  }
  // The length model enters only on the host (ssv_filter_result), so the device needs the costs alone.
  template <class L>
  static typename Policy<L>::Model upload(const StripedMsvTables<L>& tables, DeviceBuffer<typename L::word>& costs,
                                          DeviceBuffer<std::uint8_t>&) {
    costs.upload(tables.costs);
    return tables.ssv_model(costs.get());
  }
  template <class L, class Result>
  static bio::FilterResult answer(const bio::MsvFilterProfile& p, const StripedMsvTables<L>& tables,
                                  std::uint32_t length, const Result& r) {
    return ssv_filter_result(p, tables, length, r);
  }
};

// What every striped GPU filter keeps: the database, the runner of its kernels, and the shape of its last call.
template <class Policy, class Menu>
class StripedFilterRun {
 public:
  explicit StripedFilterRun(const DeviceStripedDatabase& db) : db_(db), runner_(db) {}

  recurrences::StripedShape last_shape() const { return last_shape_; }
  double kernel_ms() const { return runner_.kernel_ms(); }
  double last_kernel_ms() const { return runner_.last_kernel_ms(); }

 protected:
  // The menu's shape for a model of M nodes in `width`-lane words (`forced` when set); an error naming `filter`
  // when no shape holds it.
  static int shape_or_throw(const char* filter, int forced, int M, int width) {
    const int index = shape_index<Menu>(forced, M, width);
    if (index < 0) {
      throw std::invalid_argument(std::string(filter) + ": no striped shape holds a model of " + std::to_string(M) +
                                  " nodes");
    }
    return index;
  }

  const DeviceStripedDatabase& db_;
  DeviceStripedRunner<Policy, Menu> runner_;
  recurrences::StripedShape last_shape_;
};

// A Kind's filter in one lane: the tables striped for the model's shape, one kernel, HMMER's answers.
template <class Kind, class Lane, class Menu>
class MsvTableLaneRun : public StripedFilterRun<typename Kind::template Policy<Lane>, Menu> {
  using Base = StripedFilterRun<typename Kind::template Policy<Lane>, Menu>;

 public:
  using Base::Base;

  std::vector<bio::FilterResult> scores(const bio::MsvFilterProfile& profile, const std::vector<std::uint32_t>& ids,
                                        int forced) {
    const int index = Base::shape_or_throw(Kind::name, forced, profile.M, Lane::width);
    this->last_shape_ = striped_shape_of<Menu>(index, Lane::width);
    const StripedMsvTables<Lane> tables = stripe_msv<Lane>(profile, this->last_shape_, this->db_.max_length());
    const auto raw = this->runner_.run(index, Kind::template upload<Lane>(tables, costs_, moves_), ids);
    std::vector<bio::FilterResult> out(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      out[i] = Kind::answer(profile, tables, this->db_.length(ids[i]), raw[i]);
    }
    return out;
  }

 private:
  DeviceBuffer<typename Lane::word> costs_;
  DeviceBuffer<std::uint8_t> moves_;
};

// The public face of the MSV-table filters: lane L, or the Kind's fallback lane for models on which L is not exact.
template <class Kind, class L, class Menu>
class DeviceMsvTableFilter {
 public:
  explicit DeviceMsvTableFilter(const DeviceStripedDatabase& db) : lane_(db), fallback_(db) {}

  // False when no compiled shape holds the model (then score it on the host).
  bool fits(int M) const { return choose_striped_shape<Menu>(M, L::width) >= 0; }
  // Runs every model on the menu's shape `index` (when it holds the model), -1 to choose by size again.
  void force_shape(int index) { forced_ = index; }

  std::vector<bio::FilterResult> scores(const bio::MsvFilterProfile& profile, const std::vector<std::uint32_t>& ids) {
    last_in_fallback_ = !Kind::template exact_in<L>(profile);
    return last_in_fallback_ ? fallback_.scores(profile, ids, forced_) : lane_.scores(profile, ids, forced_);
  }
  recurrences::StripedShape last_shape() const {
    return last_in_fallback_ ? fallback_.last_shape() : lane_.last_shape();
  }
  double kernel_ms() const { return lane_.kernel_ms() + fallback_.kernel_ms(); }
  double last_kernel_ms() const { return last_in_fallback_ ? fallback_.last_kernel_ms() : lane_.last_kernel_ms(); }

 private:
  MsvTableLaneRun<Kind, L, Menu> lane_;
  MsvTableLaneRun<Kind, typename Kind::template FallbackLane<L>, Menu> fallback_;
  bool last_in_fallback_ = false;
  int forced_ = -1;
};

}  // namespace detail

// HMMER's MSV filter (p7_MSVFilter) of database targets on the GPU, in lane L (s16x2 with DPX, or u8x4). Models
// whose bias the wide lanes cannot take exactly (Plan7Msv::wide_lanes_exact) run in u8x4.
template <class L = lanes::s16x2, class Menu = MsvMenu>
class DeviceMsvFilter : public detail::DeviceMsvTableFilter<detail::MsvFilterKind, L, Menu> {
 public:
  using detail::DeviceMsvTableFilter<detail::MsvFilterKind, L, Menu>::DeviceMsvTableFilter;
};

// HMMER's SSV filter (p7_SSVFilter: the best single ungapped diagonal) on the GPU, in lane L, exact in every lane.
// Its answers include FilterStatus::NoResult wherever p7_SSVFilter gives eslENORESULT (the J state might have been
// used), where hmmsearch then runs the MSV DP.
template <class L = lanes::s16x2, class Menu = MsvMenu>
class DeviceSsvFilter : public detail::DeviceMsvTableFilter<detail::SsvFilterKind, L, Menu> {
 public:
  using detail::DeviceMsvTableFilter<detail::SsvFilterKind, L, Menu>::DeviceMsvTableFilter;
};

// HMMER's Viterbi filter (p7_ViterbiFilter) on the GPU in 16-bit words. Targets the words cannot score exactly
// (see viterbi_filter_fits_words) are reported in `host_targets` and left Ok/0 in the results: score them with
// bio::viterbi_filter.
template <class Menu = ViterbiMenu>
class DeviceViterbiFilter : public detail::StripedFilterRun<recurrences::Plan7ViterbiFilter<lanes::s16x2>, Menu> {
 public:
  using L = lanes::s16x2;
  using Policy = recurrences::Plan7ViterbiFilter<L>;
  using detail::StripedFilterRun<Policy, Menu>::StripedFilterRun;

  void force_shape(int index) { forced_ = index; }

  std::vector<bio::FilterResult> scores(const bio::ViterbiFilterProfile& profile, const std::vector<std::uint32_t>& ids,
                                        const SequencesView& host_db, std::vector<std::uint32_t>& host_targets) {
    host_targets.clear();
    std::vector<bio::FilterResult> out(ids.size());
    std::uint64_t unsafe_codes = 0;
    const int index = detail::shape_index<Menu>(forced_, profile.M, L::width);
    if (index < 0 || !viterbi_filter_fits_words(profile, this->db_.max_length(), unsafe_codes)) {
      host_targets.assign(ids.begin(), ids.end());
      return out;
    }
    std::vector<std::uint32_t> device_ids;
    std::vector<std::size_t> device_positions;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (holds_any_code(host_db, ids[i], unsafe_codes)) {
        host_targets.push_back(ids[i]);
      } else {
        device_ids.push_back(ids[i]);
        device_positions.push_back(i);
      }
    }
    this->last_shape_ = striped_shape_of<Menu>(index, L::width);
    const StripedViterbiTables<L> tables = stripe_viterbi<L>(profile, this->last_shape_, this->db_.max_length());
    match_.upload(tables.match);
    transitions_.upload(tables.transitions);
    moves_.upload(tables.moves);
    const auto raw = this->runner_.run(index, tables.model(match_.get(), transitions_.get(), moves_.get()), device_ids);
    for (std::size_t i = 0; i < device_ids.size(); ++i) {
      out[device_positions[i]] = viterbi_filter_result(profile, tables, this->db_.length(device_ids[i]), raw[i]);
    }
    return out;
  }

 private:
  DeviceBuffer<L::word> match_, transitions_;
  DeviceBuffer<std::int16_t> moves_;
  int forced_ = -1;
};

// The Plan7 Forward score (float, all paths) of database targets on the GPU, for the F3 stage: agrees with
// HMMER's to float rounding, not bit for bit (see recurrences/plan7_forward.hpp).
template <class Menu = ForwardMenu>
class DeviceForwardFilter : public detail::StripedFilterRun<recurrences::Plan7Forward, Menu> {
  using Base = detail::StripedFilterRun<recurrences::Plan7Forward, Menu>;

 public:
  using Policy = recurrences::Plan7Forward;
  using Base::Base;

  bool fits(int M) const { return choose_striped_shape<Menu>(M, 1) >= 0; }
  void force_shape(int index) { forced_ = index; }

  // Forward scores in nats of the targets `ids`, with the profile's length model set per target.
  std::vector<float> scores(const bio::Plan7Profile& profile, const std::vector<std::uint32_t>& ids) {
    const int index = Base::shape_or_throw("DeviceForwardFilter", forced_, profile.M, 1);
    this->last_shape_ = striped_shape_of<Menu>(index, 1);
    const StripedForwardTables tables = stripe_forward(profile, this->last_shape_);
    match_.upload(tables.match);
    transitions_.upload(tables.transitions);
    const auto raw = this->runner_.run(index, tables.model(match_.get(), transitions_.get()), ids);
    std::vector<float> out(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) out[i] = raw[i].nats;
    return out;
  }

 private:
  DeviceBuffer<float> match_, transitions_;
  int forced_ = -1;
};

}  // namespace cudp::engine
