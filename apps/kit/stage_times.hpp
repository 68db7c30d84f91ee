#pragma once
/// \file
/// Where the wall time of a run of a tool goes, stage by stage, for tuning: set CUDP_STAGE_TIMES=1 and the
/// totals are printed on standard error when the run ends. Costs one clock read per stage when off.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace cudp::apps {

/// Wall-time totals per named stage, printed on standard error when CUDP_STAGE_TIMES=1.
class StageTimes {
 public:
  using clock = std::chrono::steady_clock;  ///< the clock stages are measured with

  /// The process's one set of totals.
  static StageTimes& global() {
    static StageTimes times;
    return times;
  }
  /// Whether CUDP_STAGE_TIMES asked for them.
  bool enabled() const { return enabled_; }

  /// Adds the time since `since` to stage `name` and returns now (the start of the next stage).
  clock::time_point add(const char* name, clock::time_point since) {
    const clock::time_point now = clock::now();
    add_seconds(name, std::chrono::duration<double>(now - since).count());
    return now;
  }
  /// For times measured otherwise (device events).
  void add_seconds(const char* name, double seconds) {
    if (!enabled_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    auto& entry = totals_[name];
    if (entry.second == 0) order_.emplace_back(name);
    entry.first += seconds;
    ++entry.second;
  }

  /// A daemon prints each request's stages, then starts over.
  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    totals_.clear();
    order_.clear();
  }

  /// Prints each stage's total and count, in the order stages first occurred, prefixed by `program`.
  void print(const char* program) const {
    if (!enabled_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    for (const std::string& name : order_) {
      const auto& entry = totals_.at(name);
      std::fprintf(stderr, "%s: stage %-22s %9.4f s  (%d times)\n", program, name.c_str(), entry.first, entry.second);
    }
  }

 private:
  StageTimes() {
    const char* env = std::getenv("CUDP_STAGE_TIMES");
    enabled_ = env != nullptr && *env != '\0' && *env != '0';
  }
  bool enabled_ = false;
  mutable std::mutex mutex_;
  std::map<std::string, std::pair<double, int>> totals_;
  std::vector<std::string> order_;
};

}  // namespace cudp::apps
