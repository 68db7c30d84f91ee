#pragma once
// Launches one tier's kernel over a task list.
#include <cstdint>

#include "../tiers/wavefront.cuh"
#include "cuda_check.cuh"

namespace cudp::engine {

// Besides the scores, `observer` (tiers/observers.hpp) may report more of each target's matrix.
template <class P, class Tier, class Observer = tiers::ScoreOnly>
void launch_tier(const P& p, const tiers::TaskList<P::Lane::width>& tasks,
                 const tiers::ProfileView<typename P::Lane::scalar>& profile, int m, typename P::Right* boundary,
                 std::int32_t* scores, cudaStream_t stream, const Observer& observer = {}) {
  if (tasks.count == 0) return;
  using WF = tiers::Wavefront<P, Tier, Observer>;
  auto kernel = tiers::align_tasks_kernel<P, Tier, Observer>;
  const int shared = WF::shared_bytes(profile.rows);
  if (shared > 48 * 1024)
    CUDP_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  constexpr int tasks_per_block = Tier::block_threads / Tier::group_size;
  const int blocks = (tasks.count + tasks_per_block - 1) / tasks_per_block;
  kernel<<<blocks, Tier::block_threads, shared, stream>>>(p, tasks, profile, m, boundary, scores, observer);
  CUDP_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cudp::engine
