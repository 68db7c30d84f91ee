#pragma once
// Stateless dispatch of the wavefront tiers: given a tuning policy, a recurrence policy, one batch's task list, its
// tier (an index into the policy's tier list) and the query's shape on that tier, launches the kernel of that shape.
// Which tier a batch belongs to and which shape a query takes are decided by the callers (device_database.cuh,
// tier_list.hpp's choose_shape); this only turns the indices back into types.
#include <cstdint>

#include "../tiers/task_list.hpp"
#include "launch.cuh"
#include "tier_list.hpp"

namespace cudp::engine {

template <class Tuning, class P>
void dispatch_tier(int tier, int shape, const P& p, const tiers::TaskList<P::Lane::width>& tasks,
                   const tiers::ProfileView<typename P::Lane::scalar>& profile, int m, typename P::Right* boundary,
                   std::int32_t* scores, cudaStream_t stream) {
  Tuning::Tiers::with_entry(tier, [&](auto entry) {
    decltype(entry)::with_shape(shape, [&](auto kernel_shape) {
      launch_tier<P, decltype(kernel_shape)>(p, tasks, profile, m, boundary, scores, stream);
    });
  });
}

}  // namespace cudp::engine
