#pragma once
// Which tier takes which targets, per architecture: tuning data, kept apart from the algorithms. Targets are
// partitioned by length; each range goes to one tier. Figures come from bench/ runs (see bench/RESULTS.md).
#include <cstdlib>
#include <string>

namespace cudp::engine {

struct TierThresholds {
  int thread_max_length = 1024;  // targets up to this length: thread tier
  int warp_max_length = 16384;   // up to this: warp tier; longer: block tier
};

inline TierThresholds tier_thresholds(int sm_major, int sm_minor) {
  (void)sm_minor;
  TierThresholds t;
  if (sm_major >= 9) {
    // H200, 570k-target Swiss-Prot-like ladder (bench/RESULTS.md, 2026-11-21): everything on the warp tier ran
    // at 2.77 TCUPS against 0.80 with targets up to 1024 on the thread tier and 0.51 all on the thread tier,
    // whose strip carries through global memory every 16 columns cost more than the warp's ramp-up.
    t.thread_max_length = 0;
    t.warp_max_length = 16384;
  }
  // CUDP_TIERS="THREAD_MAX,WARP_MAX" overrides the table, for tuning runs.
  if (const char* env = std::getenv("CUDP_TIERS")) {
    std::string s(env);
    auto comma = s.find(',');
    if (comma != std::string::npos) {
      t.thread_max_length = std::atoi(s.substr(0, comma).c_str());
      t.warp_max_length = std::atoi(s.substr(comma + 1).c_str());
    }
  }
  return t;
}

}  // namespace cudp::engine
