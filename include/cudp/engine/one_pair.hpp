#pragma once
// One query against one target on the host tier, with an observer: the coordinate passes (locate.hpp) and the
// linear-space alignment passes (align/) run single pairs this way, on the same policy code as bulk scoring.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../tiers/host.hpp"
#include "cascade.hpp"
#include "profile.hpp"
#include "task_packing.hpp"

namespace cudp::engine {

// Runs policy P over query[0, m) x target[0, n) (n >= 1, m >= 1) with `observer`; returns the policy's score.
// Strips of 8 columns: single pairs ran 25% faster than with 32 (s32 lanes, BestCell, a 1500 x 1500 pair; the
// wider tile's carries no longer stay in registers).
template <class P, class Matrix, class Observer>
std::int32_t run_one_pair_on_host(const typename P::Params& params, const Matrix& matrix, const std::uint8_t* query,
                                  int m, const std::uint8_t* target, int n, const Observer& observer) {
  using Tier = tiers::HostTier<8>;
  // The profile needs rows only for the codes that occur; the pad code comes after them.
  int codes = 0;
  for (int j = 0; j < m; ++j) codes = std::max(codes, query[j] + 1);
  for (int i = 0; i < n; ++i) codes = std::max(codes, target[i] + 1);
  const Profile<P> profile = build_profile<P>(params, matrix, codes, query, m, Tier::columns_per_thread);
  const std::uint64_t offsets[2] = {0, static_cast<std::uint64_t>(n)};
  const SequencesView one{target, offsets, 1};
  const std::uint32_t order = 0;
  const auto tasks = pack_tasks<1>(one, &order, 1, static_cast<std::uint8_t>(profile.pad_code));
  std::int32_t score = 0;
  std::vector<typename P::Right> boundary;
  Tier::align_task(P(params, shape_of(profile.data, codes, profile.stride, m)), tasks.view(), 0, profile.view(), m,
                   &score, boundary, observer);
  return score;
}

}  // namespace cudp::engine
