#pragma once
// The cores the host tier may run on: this process's CPU affinity, which taskset, a batch system's cgroup and
// mpirun's binding narrow and std::thread::hardware_concurrency() does not see. Workers past it only take turns.
#include <algorithm>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace cudp::host {

inline int usable_cores() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
#endif
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace cudp::host
