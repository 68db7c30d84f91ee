#pragma once
/// \file
/// Tuning overrides from the environment, for the tools and benchmark programs (the library itself reads no
/// environment; these become engine::DispatchOptions):
///   CUDP_TIERS="THREAD_MAX,WARP_MAX"  the tier thresholds, instead of the architecture's tuning
///   CUDP_WARP_SHAPE="G,R"             every query's warp tier in that shape (it must be in the lane's menu)
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include <cudp/engine/dispatch_options.hpp>

namespace cudp::apps {

/// "A,B" as two integers (atoi: what is not a number reads 0); nullopt without a comma.
inline std::optional<std::pair<int, int>> parse_int_pair(const std::string& s) {
  const auto comma = s.find(',');
  if (comma == std::string::npos) return std::nullopt;
  return std::pair<int, int>{std::atoi(s.substr(0, comma).c_str()), std::atoi(s.substr(comma + 1).c_str())};
}

/// The dispatch options that CUDP_TIERS and CUDP_WARP_SHAPE ask for (none set: the architecture's tuning).
inline engine::DispatchOptions dispatch_options_from_env() {
  engine::DispatchOptions options;
  if (const char* env = std::getenv("CUDP_TIERS"))
    if (auto pair = parse_int_pair(env)) options.thresholds = engine::TierThresholds{pair->first, pair->second};
  if (const char* env = std::getenv("CUDP_WARP_SHAPE")) {
    const std::string s(env);
    const auto pair = parse_int_pair(s);
    options.warp_shape = pair ? engine::WarpShape{pair->first, pair->second} : engine::WarpShape{std::atoi(s.c_str()), 0};
  }
  return options;
}

}  // namespace cudp::apps
