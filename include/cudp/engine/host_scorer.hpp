#pragma once
// Scores one query against every target on the CPU with the host tier, through the overflow cascade.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "../lanes/s32.hpp"
#include "../tiers/host.hpp"
#include "cascade.hpp"
#include "profile.hpp"
#include "task_packing.hpp"

namespace cudp::engine {

template <template <class> class Policy, class Narrow = lanes::s32, class Matrix>
std::vector<std::int32_t> score_on_host(const typename Policy<lanes::s32>::Params& params, const Matrix& matrix,
                                        int alphabet_size, const std::uint8_t* query, int query_length,
                                        const SequencesView& db, int threads = 0, CascadeStats* stats = nullptr) {
  using Wide = Policy<lanes::s32>;
  using Tier = tiers::HostTier<32>;
  std::vector<std::int32_t> scores(db.count, 0);
  CascadeStats local_stats;
  CascadeStats& st = stats ? *stats : local_stats;

  Profile<Wide> wide_profile = build_profile<Wide>(params, matrix, alphabet_size, query, query_length, Tier::columns_per_thread);
  recurrences::ProblemShape shape = shape_of(wide_profile.data, alphabet_size, wide_profile.stride, query_length);
  for (std::size_t t = 0; t < db.count; ++t) st.cells += static_cast<std::uint64_t>(db.length(t)) * query_length;

  std::vector<std::uint32_t> wide;
  if constexpr (std::is_same_v<Narrow, lanes::s32>) {
    wide.resize(db.count);
    for (std::uint32_t t = 0; t < db.count; ++t) wide[t] = t;
  } else {
    using NarrowPolicy = Policy<Narrow>;
    LanePlan plan = plan_lanes<NarrowPolicy>(params, shape, db);
    // Longest first, so that no worker is left with a long target at the end.
    std::stable_sort(plan.narrow.begin(), plan.narrow.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return db.length(a) > db.length(b); });
    NarrowPolicy p(params, shape);
    Profile<NarrowPolicy> prof = build_profile<NarrowPolicy>(params, matrix, alphabet_size, query, query_length, Tier::columns_per_thread);
    auto tasks = pack_tasks<Narrow::width>(db, plan.narrow.data(), plan.narrow.size(), static_cast<std::uint8_t>(prof.pad_code));
    Tier::run(p, tasks.view(), prof.view(), query_length, scores.data(), threads);
    wide = finish_cascade(p, std::move(plan), scores.data(), st);
  }
  if (!wide.empty()) {
    Wide p(params, shape);
    auto tasks = pack_tasks<1>(db, wide.data(), wide.size(), static_cast<std::uint8_t>(wide_profile.pad_code));
    Tier::run(p, tasks.view(), wide_profile.view(), query_length, scores.data(), threads);
  }
  return scores;
}

}  // namespace cudp::engine
