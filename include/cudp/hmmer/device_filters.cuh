#pragma once
// HMMER's filters on the GPU: the striped Plan7 policies (MSV, SSV, Viterbi filter, Forward) run by the generic
// striped runner of engine/device_striped.cuh, with their tables striped per model (striped_tables.hpp) and their
// raw results turned back into HMMER's filter scores.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../engine/device_buffer.cuh"
#include "../engine/device_striped.cuh"
#include "../engine/sequences.hpp"
#include "../engine/striped_tuning.hpp"
#include "../lanes/s16x2.hpp"
#include "../lanes/u8x4.hpp"
#include "../host/parallel_for.hpp"
#include "filter_survivors.hpp"
#include "filter_tuning.hpp"
#include "striped_tables.hpp"

namespace cudp::hmmer {

namespace detail {

// The MSV targets that may pass: an overflow, or a J value at least the least one of the target's length
// (msv_least_j_by_length); the rest certainly fail.
struct MsvMayPassOnDevice {
  const std::int32_t* least_j;  // by target length
  template <class Result>
  __device__ bool operator()(const Result& r, std::uint32_t length) const {
    return r.status == recurrences::StripedStatus::Overflow || r.xJ >= least_j[length];
  }
};

// The filters that read the MSV tables (stripe_msv) differ only in the policy, the lanes in which it gives HMMER's
// bytes, what it reads on the device, and how its raw result becomes HMMER's answer.
struct MsvFilterKind {
  template <class L>
  using Policy = Plan7Msv<L>;
  // HMMER's own byte arithmetic: exact for every model.
  template <class L>
  using FallbackLane = lanes::u8x4;
  static constexpr const char* name = "DeviceMsvFilter";

  template <class L>
  static bool exact_in(const MsvFilterProfile& p) {
    return Policy<L>::wide_lanes_exact(p.base, p.bias);
  }
  template <class L>
  static typename Policy<L>::Model upload(const StripedMsvTables<L>& tables,
                                          engine::DeviceBuffer<typename L::word>& costs,
                                          engine::DeviceBuffer<std::uint8_t>& moves, cudaStream_t stream) {
    costs.upload_in_order(tables.costs, stream);
    moves.upload_in_order(tables.move_costs, stream);
    return tables.model(costs.get(), moves.get());
  }
  template <class L, class Result>
  static FilterResult answer(const MsvFilterProfile& p, const StripedMsvTables<L>& tables,
                                  std::uint32_t length, const Result& r) {
    return msv_filter_result(p, tables, length, r);
  }
};

struct SsvFilterKind {
  template <class L>
  using Policy = Plan7Ssv<L>;
  // Never taken (see exact_in); L itself, so that no second set of kernels is compiled.
  template <class L>
  using FallbackLane = L;
  static constexpr const char* name = "DeviceSsvFilter";

  // No B state feeds back into the diagonals, so the wide lanes' missing top clamp (or their wrap) can only act
  // after the best h has decided the answer (hmmer/striped_ssv.hpp): every lane is exact for every model.
  template <class L>
  static bool exact_in(const MsvFilterProfile&) {
    return true;
  }
  // The length model enters only on the host (ssv_filter_result), so the device needs the costs alone.
  template <class L>
  static typename Policy<L>::Model upload(const StripedMsvTables<L>& tables,
                                          engine::DeviceBuffer<typename L::word>& costs,
                                          engine::DeviceBuffer<std::uint8_t>&, cudaStream_t stream) {
    costs.upload_in_order(tables.costs, stream);
    return tables.ssv_model(costs.get());
  }
  template <class L, class Result>
  static FilterResult answer(const MsvFilterProfile& p, const StripedMsvTables<L>& tables,
                                  std::uint32_t length, const Result& r) {
    return ssv_filter_result(p, tables, length, r);
  }
};

// A Kind's filter in one lane: the tables striped for the model's shape, one kernel, HMMER's answers.
template <class Kind, class Lane, class Menu>
class MsvTableLaneRun : public engine::StripedFilterRun<typename Kind::template Policy<Lane>, Menu> {
  using Base = engine::StripedFilterRun<typename Kind::template Policy<Lane>, Menu>;

 public:
  using Base::Base;

  std::vector<FilterResult> scores(const MsvFilterProfile& profile, const std::vector<std::uint32_t>& ids,
                                        int forced) {
    const int index = Base::shape_or_throw(Kind::name, forced, profile.M, Lane::width);
    this->last_shape_ = engine::striped_shape_of<Menu>(index, Lane::width);
    const StripedMsvTables<Lane> tables = stripe_msv<Lane>(profile, this->last_shape_, this->db_.max_length());
    const auto raw =
        this->runner_.run(index, Kind::template upload<Lane>(tables, costs_, moves_, this->runner_.stream()), ids);
    // Every target of the database comes back: on one thread this took longer than the kernel.
    std::vector<FilterResult> out(ids.size());
    constexpr std::size_t kChunk = std::size_t{1} << 15;
    host::parallel_for(
        (ids.size() + kChunk - 1) / kChunk, 0, [] { return 0; },
        [&](int, std::size_t chunk) {
          for (std::size_t i = chunk * kChunk, end = std::min(ids.size(), i + kChunk); i < end; ++i)
            out[i] = Kind::answer(profile, tables, this->db_.length(ids[i]), raw[i]);
        });
    return out;
  }

  // The results of the targets of ids that may pass (MSV only): the others are set aside on the device.
  FilterSurvivors survivors(const MsvFilterProfile& profile, const std::vector<std::uint32_t>& ids, int forced,
                            const MsvMayPass& may_pass) {
    const int index = Base::shape_or_throw(Kind::name, forced, profile.M, Lane::width);
    this->last_shape_ = engine::striped_shape_of<Menu>(index, Lane::width);
    const StripedMsvTables<Lane> tables = stripe_msv<Lane>(profile, this->last_shape_, this->db_.max_length());
    least_j_.upload_in_order(msv_least_j_by_length(profile, tables, may_pass), this->runner_.stream());
    const auto kept = this->runner_.run_kept(
        index, Kind::template upload<Lane>(tables, costs_, moves_, this->runner_.stream()), ids,
        MsvMayPassOnDevice{least_j_.get()});
    FilterSurvivors out;
    out.positions = kept.positions;
    out.results.resize(kept.positions.size());
    for (std::size_t k = 0; k < out.results.size(); ++k)
      out.results[k] = Kind::answer(profile, tables, this->db_.length(ids[kept.positions[k]]), kept.results[k]);
    return out;
  }

 private:
  engine::DeviceBuffer<typename Lane::word> costs_;
  engine::DeviceBuffer<std::uint8_t> moves_;
  engine::DeviceBuffer<std::int32_t> least_j_;
};

// The public face of the MSV-table filters: lane L, or the Kind's fallback lane for models on which L is not exact.
template <class Kind, class L, class Menu>
class DeviceMsvTableFilter {
 public:
  explicit DeviceMsvTableFilter(const engine::DeviceStripedDatabase& db,
                                engine::StreamPriority priority = engine::StreamPriority::Default)
      : lane_(db, priority), fallback_(db, priority) {}

  // False when no compiled shape holds the model (then score it on the host).
  bool fits(int M) const { return engine::choose_striped_shape<Menu>(M, L::width) >= 0; }
  // Runs every model on the menu's shape `index` (when it holds the model), -1 to choose by size again.
  void force_shape(int index) { forced_ = index; }

  std::vector<FilterResult> scores(const MsvFilterProfile& profile, const std::vector<std::uint32_t>& ids) {
    last_in_fallback_ = !Kind::template exact_in<L>(profile);
    return last_in_fallback_ ? fallback_.scores(profile, ids, forced_) : lane_.scores(profile, ids, forced_);
  }
  // MSV only: the results of the targets that may pass, the certain failures set aside on the device.
  FilterSurvivors survivors(const MsvFilterProfile& profile, const std::vector<std::uint32_t>& ids,
                            const MsvMayPass& may_pass) {
    last_in_fallback_ = !Kind::template exact_in<L>(profile);
    return last_in_fallback_ ? fallback_.survivors(profile, ids, forced_, may_pass)
                             : lane_.survivors(profile, ids, forced_, may_pass);
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
// whose bias the wide lanes cannot take exactly (Plan7Msv::wide_lanes_exact) run in u8x4. scores() gives every
// target's result; survivors() only those that may pass (FilterSurvivors).
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
// viterbi_filter. `codes_in_db` (codes_present of host_db, computed once) spares the search for such targets
// where the database holds none of the codes that make them.
template <class Menu = ViterbiMenu>
class DeviceViterbiFilter : public engine::StripedFilterRun<Plan7ViterbiFilter<lanes::s16x2>, Menu> {
 public:
  using L = lanes::s16x2;
  using Policy = Plan7ViterbiFilter<L>;
  using engine::StripedFilterRun<Policy, Menu>::StripedFilterRun;

  void force_shape(int index) { forced_ = index; }

  std::vector<FilterResult> scores(const ViterbiFilterProfile& profile, const std::vector<std::uint32_t>& ids,
                                   const engine::SequencesView& host_db, std::vector<std::uint32_t>& host_targets,
                                   std::uint64_t codes_in_db = ~std::uint64_t{0}) {
    host_targets.clear();
    std::vector<FilterResult> out(ids.size());
    std::uint64_t unsafe_codes = 0;
    const int index = this->shape_for(forced_, profile.M, L::width);
    if (index < 0 || !viterbi_filter_fits_words(profile, this->db_.max_length(), unsafe_codes)) {
      host_targets.assign(ids.begin(), ids.end());
      return out;
    }
    unsafe_codes &= codes_in_db;
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
    this->last_shape_ = engine::striped_shape_of<Menu>(index, L::width);
    const StripedViterbiTables<L> tables = stripe_viterbi<L>(profile, this->last_shape_, this->db_.max_length());
    match_.upload_in_order(tables.match, this->runner_.stream());
    transitions_.upload_in_order(tables.transitions, this->runner_.stream());
    moves_.upload_in_order(tables.moves, this->runner_.stream());
    const auto raw = this->runner_.run(index, tables.model(match_.get(), transitions_.get(), moves_.get()), device_ids);
    for (std::size_t i = 0; i < device_ids.size(); ++i) {
      out[device_positions[i]] = viterbi_filter_result(profile, tables, this->db_.length(device_ids[i]), raw[i]);
    }
    return out;
  }

 private:
  engine::DeviceBuffer<L::word> match_, transitions_;
  engine::DeviceBuffer<std::int16_t> moves_;
  int forced_ = -1;
};

// The Plan7 Forward score (float, all paths) of database targets on the GPU, for the F3 stage: agrees with
// HMMER's to float rounding, not bit for bit (see hmmer/striped_forward.hpp).
template <class Menu = ForwardMenu>
class DeviceForwardFilter : public engine::StripedFilterRun<Plan7Forward, Menu> {
  using Base = engine::StripedFilterRun<Plan7Forward, Menu>;

 public:
  using Policy = Plan7Forward;
  using Base::Base;

  bool fits(int M) const { return engine::choose_striped_shape<Menu>(M, 1) >= 0; }
  void force_shape(int index) { forced_ = index; }

  // Forward scores in nats of the targets `ids`, with the profile's length model set per target.
  std::vector<float> scores(const Plan7Profile& profile, const std::vector<std::uint32_t>& ids) {
    const int index = Base::shape_or_throw("DeviceForwardFilter", forced_, profile.M, 1);
    this->last_shape_ = engine::striped_shape_of<Menu>(index, 1);
    const StripedForwardTables tables = stripe_forward(profile, this->last_shape_);
    match_.upload_in_order(tables.match, this->runner_.stream());
    transitions_.upload_in_order(tables.transitions, this->runner_.stream());
    const auto raw = this->runner_.run(index, tables.model(match_.get(), transitions_.get()), ids);
    std::vector<float> out(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) out[i] = raw[i].nats;
    return out;
  }

 private:
  engine::DeviceBuffer<float> match_, transitions_;
  int forced_ = -1;
};

}  // namespace cudp::hmmer
