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
    t.thread_max_length = 1024;
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
