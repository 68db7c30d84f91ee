#pragma once
// Scores queries against a database on the GPU: the overflow cascade's driver. The database is packed once at
// construction (DevicePackedDatabase: sorted by length, one length range per tier of the architecture's tuning,
// resident or streamed in batches); each group of queries then makes one narrow pass over every batch, each query's
// kernels launched by the stateless dispatch (dispatch.cuh) in the shape its length wastes least on, and the few
// targets the narrow lane could not hold are rescored in s32. The host's share of a query (its download, the
// overflow check) runs while the GPU scores the next.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "../lanes/s16x2.hpp"
#include "../lanes/s32.hpp"
#include "../lanes/s8x4.hpp"
#include "cascade.hpp"
#include "device_database.cuh"
#include "device_tasks.cuh"
#include "dispatch.cuh"
#include "dispatch_options.hpp"
#include "launch.cuh"
#include "profile.hpp"
#include "tier_list.hpp"
#include "tuning.cuh"

namespace cudp::engine {

// The narrow pass on one tier.
struct TierRunStats {
  const char* name = "";
  float ms = 0;             // kernel time of the tier's batches
  std::uint64_t cells = 0;  // query length x the tier's residues
  WarpShape shape{};        // the shape the (last) query ran in on this tier
};

struct DeviceRunStats {
  float kernel_ms = 0;              // narrow pass, all tiers
  float rescore_ms = 0;             // wide pass
  float wall_ms = 0;                // the whole query, uploads of streamed batches included
  std::vector<TierRunStats> tiers;  // narrow pass per tier, in the tuning's tier-list order

  // The tier named `name` ("thread", "warp", "block"); all zero where the tuning has none.
  const TierRunStats& tier(std::string_view name) const {
    static const TierRunStats none{};
    for (const TierRunStats& t : tiers)
      if (name == t.name) return t;
    return none;
  }
};

template <template <class> class Policy, class Narrow = lanes::s16x2, class Archs = TunedArchs>
class DeviceScorer {
 public:
  using NarrowPolicy = Policy<Narrow>;
  using WidePolicy = Policy<lanes::s32>;
  using Params = typename WidePolicy::Params;
  static constexpr int W = Narrow::width;

  // The tuning is the policy of `options.sm_arch` (by default the current device's), with the thresholds and warp
  // shape `options` overrides. `device_bytes` caps the GPU memory the packed database may take (0: most of what is
  // free); a database above it is streamed in batches.
  DeviceScorer(const SequencesView& db, std::uint8_t pad_code, const DispatchOptions& options = {}, std::size_t device_bytes = 0)
      : db_(db),
        pad_code_(pad_code),
        sm_arch_(options.sm_arch > 0 ? options.sm_arch : device_sm_arch()),
        requested_shape_(options.warp_shape),
        forced_shape_(options.warp_shape) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    with_tuning<Narrow>(Archs{}, sm_arch_, [&](auto tuning) {
      using Tuning = decltype(tuning);
      tiers_ = plan_tiers<Tuning>(options.thresholds ? *options.thresholds : Tuning::thresholds);
    });
    if (forced_shape_) check_forced_shape(tiers_, *forced_shape_, Narrow::name);
    const int warp = tier_index("warp");
    if (warp >= 0) warp_menu_ = tiers_[static_cast<std::size_t>(warp)].shapes;
    std::vector<long> limits;
    for (const TierPlan& t : tiers_) limits.push_back(t.max_length);
    for (cudaStream_t* s : {&stream_, &download_stream_, &wide_stream_}) CUDP_CUDA_CHECK(cudaStreamCreate(s));
    CUDP_CUDA_CHECK(cudaEventCreate(&wide_start_));
    CUDP_CUDA_CHECK(cudaEventCreate(&wide_stop_));
    const double prepare = std::chrono::duration<double>(clock::now() - start).count();
    database_.emplace(db, pad_code, limits, sizeof(typename NarrowPolicy::Right), device_bytes, stream_);
    setup_times_ = database_->setup_times();
    setup_times_.prepare = prepare;
  }
  // Explicit thresholds instead of the architecture's.
  DeviceScorer(const SequencesView& db, TierThresholds thresholds, std::uint8_t pad_code, std::size_t device_bytes = 0)
      : DeviceScorer(db, pad_code, DispatchOptions{thresholds, std::nullopt, 0}, device_bytes) {}
  DeviceScorer(const DeviceScorer&) = delete;
  DeviceScorer& operator=(const DeviceScorer&) = delete;
  ~DeviceScorer() {
    for (auto& e : batch_events_) cudaEventDestroy(e);
    for (auto& e : narrow_done_) cudaEventDestroy(e);
    cudaEventDestroy(wide_start_);
    cudaEventDestroy(wide_stop_);
    database_.reset();
    for (cudaStream_t s : {stream_, download_stream_, wide_stream_}) cudaStreamDestroy(s);
  }

  // The architecture whose tuning runs (100 * major + 10 * minor) and its tiers, in length order.
  int sm_arch() const { return sm_arch_; }
  const std::vector<TierPlan>& tier_plans() const { return tiers_; }
  // Tasks and residues of the tier named `tier` ("thread", "warp", "block"); 0 for a name the tuning lacks.
  int tasks_in(std::string_view tier) const {
    const int k = tier_index(tier);
    return k >= 0 ? database_->tasks_in(k) : 0;
  }
  std::uint64_t residues_in(std::string_view tier) const {
    const int k = tier_index(tier);
    return k >= 0 ? database_->residues_in(k) : 0;
  }
  bool streamed() const { return database_->streamed(); }
  // Device bytes the whole packed database takes when resident.
  std::uint64_t footprint_bytes() const { return database_->footprint_bytes(); }
  // The largest single task: a streaming budget must hold two of them.
  std::uint64_t largest_task_bytes() const { return database_->largest_task_bytes(); }
  std::size_t batch_count() const { return database_->batch_count(); }
  const DevicePackedDatabase<W>& database() const { return *database_; }
  // Where the constructor's time went: the scorer's own preparation, then the database's phases.
  const DatabaseSetupTimes& setup_times() const { return setup_times_; }
  // The shapes of the warp tier, from which each query picks one.
  const std::vector<WarpShape>& warp_menu() const { return warp_menu_; }
  // Index into warp_menu() of the shape a query of length m runs in.
  int warp_shape_for(int m) const {
    const int warp = tier_index("warp");
    return warp >= 0 ? choose_shape(tiers_[static_cast<std::size_t>(warp)], m, forced_shape_) : 0;
  }
  // Runs every later query in the menu's k-th warp shape (-1: back to the options' choice); tests use it to cover
  // all.
  void force_warp_shape(int k) {
    forced_shape_ = k >= 0 ? std::optional<WarpShape>(warp_menu_.at(static_cast<std::size_t>(k))) : requested_shape_;
  }

  // One query, as `score_queries` with a list of one.
  template <class Matrix>
  std::vector<std::int32_t> score(const Params& params, const Matrix& matrix, int alphabet_size, const std::uint8_t* query,
                                  int m, CascadeStats* cascade = nullptr, DeviceRunStats* run = nullptr) {
    const Query q{query, m};
    return std::move(score_queries(params, matrix, alphabet_size, &q, 1, cascade, run).front());
  }

  struct Query {
    const std::uint8_t* residues;
    int length;
  };

  // Scores of every target for each of `count` queries, as `score_queries_into` writes them.
  template <class Matrix>
  std::vector<std::vector<std::int32_t>> score_queries(const Params& params, const Matrix& matrix, int alphabet_size,
                                                       const Query* queries, std::size_t count,
                                                       CascadeStats* cascade = nullptr, DeviceRunStats* run = nullptr) {
    std::vector<std::vector<std::int32_t>> out(count);
    score_queries_into(params, matrix, alphabet_size, queries, count, [&](std::size_t q) {
      out[q].resize(db_.count);
      return out[q].data();
    }, cascade, run);
    return out;
  }

  // Scores of every target for each of `count` queries, written to destination(q) (room for one score per target,
  // asked for once per query, while the GPU is busy); done(q) is called as each query's scores are final, in query
  // order. Queries go in groups of as many as `kGroupScoreBytes` of device score buffers hold. A resident database
  // runs a group query after query, so that the host downloads and checks one query's scores while the GPU scores
  // the next; a streamed one runs every query of the group on each batch, so that a batch is uploaded once per
  // group rather than once per query. Statistics add up over the queries.
  template <class Matrix, class Destination, class Done = void (*)(std::size_t)>
  void score_queries_into(const Params& params, const Matrix& matrix, int alphabet_size, const Query* queries,
                          std::size_t count, Destination&& destination, CascadeStats* cascade = nullptr,
                          DeviceRunStats* run = nullptr, Done&& done = [](std::size_t) {}) {
    CascadeStats local_cascade;
    DeviceRunStats local_run;
    CascadeStats& cs = cascade ? *cascade : local_cascade;
    DeviceRunStats& rs = run ? *run : local_run;
    if (rs.tiers.size() != tiers_.size()) {
      rs.tiers.assign(tiers_.size(), TierRunStats{});
      for (std::size_t k = 0; k < tiers_.size(); ++k) rs.tiers[k].name = tiers_[k].name;
    }
    const std::size_t per_group = std::max<std::size_t>(1, kGroupScoreBytes / (db_.count * sizeof(std::int32_t) + 1));
    for (std::size_t first = 0; first < count; first += per_group)
      score_group(params, matrix, alphabet_size, queries + first, first, std::min(per_group, count - first), cs, rs,
                  destination, done);
  }

 private:
  static constexpr std::size_t kGroupScoreBytes = std::size_t{256} << 20;

  // What a query needs on the device and for its cascade.
  struct Prepared {
    NarrowPolicy policy;
    Profile<WidePolicy> wide_profile;
    recurrences::ProblemShape shape;
    std::vector<int> shapes;  // per tier: the index of its shape
    int m;
  };

  int tier_index(std::string_view name) const {
    for (std::size_t k = 0; k < tiers_.size(); ++k)
      if (name == tiers_[k].name) return static_cast<int>(k);
    return -1;
  }

  // Queries first..first+n-1 of the call, at `queries`.
  template <class Matrix, class Destination, class Done>
  void score_group(const Params& params, const Matrix& matrix, int alphabet_size, const Query* queries,
                   std::size_t first, std::size_t n, CascadeStats& cs, DeviceRunStats& rs, Destination& destination,
                   Done& done) {
    const auto started = std::chrono::steady_clock::now();
    std::vector<Prepared> prepared;
    prepared.reserve(n);
    if (group_profiles_.size() < n) group_profiles_.resize(n);
    if (group_scores_.size() < n) group_scores_.resize(n);
    std::vector<tiers::ProfileView<typename Narrow::scalar>> views;
    for (std::size_t i = 0; i < n; ++i) {
      const int m = queries[i].length;
      const int columns = profile_columns(tiers_, m);
      Profile<NarrowPolicy> prof = build_profile<NarrowPolicy>(params, matrix, alphabet_size, queries[i].residues, m, columns);
      Profile<WidePolicy> wide = build_profile<WidePolicy>(params, matrix, alphabet_size, queries[i].residues, m, columns);
      recurrences::ProblemShape shape = shape_of(wide.data, alphabet_size, wide.stride, m);
      group_profiles_[i].upload(prof.data, stream_);
      views.push_back({group_profiles_[i].get(), prof.stride, prof.rows});
      group_scores_[i].reserve(db_.count);
      std::vector<int> shapes;
      for (const TierPlan& t : tiers_) shapes.push_back(choose_shape(t, m, forced_shape_));
      prepared.push_back(Prepared{NarrowPolicy(params, shape), std::move(wide), shape, std::move(shapes), m});
    }
    for (std::size_t k = 0; k < tiers_.size(); ++k) rs.tiers[k].shape = tiers_[k].shapes[prepared.back().shapes[k]];
    DevicePackedDatabase<W>& database = *database_;
    auto* boundary = reserve_boundary<NarrowPolicy>(boundary_, database.boundary_slots());
    const std::size_t batches = database.batch_count();
    const bool query_major = !database.streamed();
    const std::size_t runs = batches * (query_major ? n : 1);  // timed kernel runs: per query and batch, or per batch
    ensure_events(runs, n);
    const auto launch = [&](std::size_t i, std::size_t b, const tiers::TaskList<W>& tasks) {
      const int tier = database.batch_tier(b);
      launch_narrow(prepared[i].policy, tier, prepared[i].shapes[static_cast<std::size_t>(tier)], tasks, views[i],
                    prepared[i].m, boundary, group_score_buffer(i));
    };
    if (query_major) {
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t b = 0; b < batches; ++b) {
          CUDP_CUDA_CHECK(cudaEventRecord(kernel_start(i * batches + b), stream_));
          launch(i, b, database.batch(b, stream_));
          CUDP_CUDA_CHECK(cudaEventRecord(kernel_stop(i * batches + b), stream_));
        }
        CUDP_CUDA_CHECK(cudaEventRecord(narrow_done_[i], stream_));
      }
    } else {
      // Kernels go on stream_; the database uploads the next batch on its copy stream meanwhile.
      database.begin_pass();
      for (std::size_t b = 0; b < batches; ++b) {
        const tiers::TaskList<W> tasks = database.batch(b, stream_);
        CUDP_CUDA_CHECK(cudaEventRecord(kernel_start(b), stream_));
        for (std::size_t i = 0; i < n; ++i) launch(i, b, tasks);
        CUDP_CUDA_CHECK(cudaEventRecord(kernel_stop(b), stream_));
        database.end_batch(b, stream_);
      }
      for (std::size_t i = 0; i < n; ++i) CUDP_CUDA_CHECK(cudaEventRecord(narrow_done_[i], stream_));
    }
    // While the GPU runs on, each query's scores in turn: downloaded on a stream of their own, checked for
    // overflow, and what overflowed rescored wide (on a third stream, beside the later queries' narrow kernels).
    for (std::size_t i = 0; i < n; ++i) {
      std::int32_t* scores = destination(first + i);
      CUDP_CUDA_CHECK(cudaStreamWaitEvent(download_stream_, narrow_done_[i]));
      CUDP_CUDA_CHECK(cudaMemcpyAsync(scores, group_score_buffer(i), db_.count * sizeof(std::int32_t),
                                      cudaMemcpyDeviceToHost, download_stream_));
      CUDP_CUDA_CHECK(cudaStreamSynchronize(download_stream_));
      const std::uint64_t m = static_cast<std::uint64_t>(prepared[i].m);
      for (std::size_t k = 0; k < tiers_.size(); ++k) rs.tiers[k].cells += database.residues_in(static_cast<int>(k)) * m;
      // Every target ran narrow; those the narrow lane cannot hold for certain are simply not read.
      cs.cells += database.total_residues() * m;
      rescore_wide(params, prepared[i], scores, cs, rs);
      done(first + i);
    }
    for (std::size_t e = 0; e < runs; ++e) {
      float ms = 0;
      CUDP_CUDA_CHECK(cudaEventElapsedTime(&ms, kernel_start(e), kernel_stop(e)));
      rs.tiers[static_cast<std::size_t>(database.batch_tier(e % batches))].ms += ms;
      rs.kernel_ms += ms;
    }
    rs.wall_ms += std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - started).count();
  }

  void launch_narrow(const NarrowPolicy& p, int tier, int shape, const tiers::TaskList<W>& tasks,
                     const tiers::ProfileView<typename Narrow::scalar>& pv, int m, typename NarrowPolicy::Right* boundary,
                     std::int32_t* scores) {
    with_tuning<Narrow>(Archs{}, sm_arch_, [&](auto tuning) {
      dispatch_tier<decltype(tuning)>(tier, shape, p, tasks, pv, m, boundary, scores, stream_);
    });
  }

  // The overflow cascade of one query: the targets its narrow pass could not hold, rescored in s32 on the wide
  // stream, with buffers of its own (narrow kernels of later queries may be running).
  void rescore_wide(const Params& params, const Prepared& q, std::int32_t* scores, CascadeStats& cs, DeviceRunStats& rs) {
    std::vector<std::uint32_t> wide = finish_cascade(q.policy, plan_lanes<NarrowPolicy>(params, q.shape, db_), scores, cs);
    if (wide.empty()) return;
    auto plan = pack_tasks<1>(db_, wide.data(), wide.size(), pad_code_);
    wide_tasks_.upload(plan, wide_stream_);
    wide_profile_.upload(q.wide_profile.data, wide_stream_);
    wide_scores_.reserve(db_.count);
    WidePolicy wp(params, q.shape);
    tiers::ProfileView<std::int32_t> wpv{wide_profile_.get(), q.wide_profile.stride, q.wide_profile.rows};
    auto* wide_boundary = reserve_boundary<WidePolicy>(wide_boundary_, plan.boundary_slots);
    CUDP_CUDA_CHECK(cudaEventRecord(wide_start_, wide_stream_));
    with_tuning<lanes::s32>(Archs{}, sm_arch_, [&](auto tuning) {
      using Rescore = typename decltype(tuning)::Rescore;
      launch_tier<WidePolicy, Rescore>(wp, wide_tasks_.view(), wpv, q.m, wide_boundary, wide_scores_.get(), wide_stream_);
    });
    CUDP_CUDA_CHECK(cudaEventRecord(wide_stop_, wide_stream_));
    std::vector<std::int32_t> rescored(db_.count);
    wide_scores_.download(rescored.data(), db_.count, wide_stream_);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(wide_stream_));
    float ms = 0;
    CUDP_CUDA_CHECK(cudaEventElapsedTime(&ms, wide_start_, wide_stop_));
    rs.rescore_ms += ms;
    for (std::uint32_t t : wide) scores[t] = rescored[t];
  }

  std::int32_t* group_score_buffer(std::size_t i) { return group_scores_[i].get(); }

  // Timing events around `runs` kernel runs (a batch of one query, or of every query of a group) and a
  // completion event per query of a group.
  void ensure_events(std::size_t runs, std::size_t queries) {
    while (batch_events_.size() < 2 * runs) {
      cudaEvent_t e;
      CUDP_CUDA_CHECK(cudaEventCreate(&e));
      batch_events_.push_back(e);
    }
    while (narrow_done_.size() < queries) {
      cudaEvent_t e;
      CUDP_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      narrow_done_.push_back(e);
    }
  }
  cudaEvent_t kernel_start(std::size_t run) const { return batch_events_[2 * run]; }
  cudaEvent_t kernel_stop(std::size_t run) const { return batch_events_[2 * run + 1]; }

  template <class P>
  static typename P::Right* reserve_boundary(DeviceBuffer<unsigned char>& buffer, std::uint64_t slots) {
    buffer.reserve(slots * sizeof(typename P::Right));
    return reinterpret_cast<typename P::Right*>(buffer.get());
  }

  SequencesView db_;
  std::uint8_t pad_code_;
  int sm_arch_;
  std::vector<TierPlan> tiers_;
  std::vector<WarpShape> warp_menu_;
  std::optional<WarpShape> requested_shape_, forced_shape_;
  cudaStream_t stream_{};           // narrow kernels
  cudaStream_t download_stream_{};  // narrow scores to the host
  cudaStream_t wide_stream_{};      // the overflow cascade's rescoring
  std::optional<DevicePackedDatabase<W>> database_;
  DatabaseSetupTimes setup_times_;
  DeviceTasks<1> wide_tasks_;
  std::vector<DeviceBuffer<typename Narrow::scalar>> group_profiles_;
  std::vector<DeviceBuffer<std::int32_t>> group_scores_;
  DeviceBuffer<std::int32_t> wide_profile_, wide_scores_;
  DeviceBuffer<unsigned char> boundary_, wide_boundary_;
  std::vector<cudaEvent_t> batch_events_, narrow_done_;
  cudaEvent_t wide_start_{}, wide_stop_{};
};

}  // namespace cudp::engine
