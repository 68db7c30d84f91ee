#pragma once
// Scores one query against every target on the CPU with the host tier, through the overflow cascade.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "../lanes/s32.hpp"
#include "../tiers/host.hpp"
#include "cascade.hpp"
#include "profile.hpp"
#include "task_packing.hpp"

namespace cudp::engine {

// What every host path shares for one query: the s32 profile and the problem's shape, the score array, the cells
// counted into the statistics, and the exact s32 pass over the targets the narrow lanes left.
template <class Wide>
struct HostQuery {
  using Tier = tiers::HostTier<32>;
  Profile<Wide> profile;
  recurrences::ProblemShape shape;
  std::vector<std::int32_t> scores;

  template <class Matrix>
  HostQuery(const typename Wide::Params& params, const Matrix& matrix, int alphabet_size, const std::uint8_t* query,
            int query_length, const SequencesView& db, CascadeStats& stats)
      : profile(build_profile<Wide>(params, matrix, alphabet_size, query, query_length, Tier::columns_per_thread)),
        shape(shape_of(profile.data, alphabet_size, profile.stride, query_length)),
        scores(db.count, 0) {
    for (std::size_t t = 0; t < db.count; ++t) stats.cells += static_cast<std::uint64_t>(db.length(t)) * query_length;
  }

  void score_wide(const typename Wide::Params& params, const SequencesView& db, const std::vector<std::uint32_t>& targets,
                  int threads) {
    if (targets.empty()) return;
    Wide p(params, shape);
    auto tasks = pack_tasks<1>(db, targets.data(), targets.size(), static_cast<std::uint8_t>(profile.pad_code));
    Tier::run(p, tasks.view(), profile.view(), shape.query_length, scores.data(), threads);
  }
};

template <template <class> class Policy, class Narrow = lanes::s32, class Matrix>
std::vector<std::int32_t> score_on_host(const typename Policy<lanes::s32>::Params& params, const Matrix& matrix,
                                        int alphabet_size, const std::uint8_t* query, int query_length,
                                        const SequencesView& db, int threads = 0, CascadeStats* stats = nullptr) {
  using Tier = tiers::HostTier<32>;
  CascadeStats local_stats;
  CascadeStats& st = stats ? *stats : local_stats;
  HostQuery<Policy<lanes::s32>> run(params, matrix, alphabet_size, query, query_length, db, st);

  std::vector<std::uint32_t> wide;
  if constexpr (std::is_same_v<Narrow, lanes::s32>) {
    wide.resize(db.count);
    for (std::uint32_t t = 0; t < db.count; ++t) wide[t] = t;
  } else {
    using NarrowPolicy = Policy<Narrow>;
    LanePlan plan = plan_lanes<NarrowPolicy>(params, run.shape, db);
    sort_longest_first(db, plan.narrow);
    NarrowPolicy p(params, run.shape);
    Profile<NarrowPolicy> prof = build_profile<NarrowPolicy>(params, matrix, alphabet_size, query, query_length, Tier::columns_per_thread);
    auto tasks = pack_tasks<Narrow::width>(db, plan.narrow.data(), plan.narrow.size(), static_cast<std::uint8_t>(prof.pad_code));
    Tier::run(p, tasks.view(), prof.view(), query_length, run.scores.data(), threads);
    wide = finish_cascade(p, std::move(plan), run.scores.data(), st);
  }
  run.score_wide(params, db, wide, threads);
  return std::move(run.scores);
}

}  // namespace cudp::engine
