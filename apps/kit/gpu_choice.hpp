#pragma once
/// \file
/// Which GPUs a process of a tool searches with (--gpus N|all). A lone process takes all that it sees
/// unless told otherwise; under mpirun each process takes one unless told otherwise, so that one process per GPU,
/// the usual launch, shares nothing. Process r of a node asking for N takes the N devices from r*N on, wrapping
/// around: processes beyond the GPUs share them. CUDA_VISIBLE_DEVICES narrows what a process sees, and the
/// runtime numbers those it lets through from 0. A number of GPUs asked for is a promise: with fewer devices, or none,
/// it is an error, never a quiet run on the host; `auto` finding none says so (note_host_fallback).
#include <stdexcept>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "notes.hpp"

namespace cudp::apps {

/// --gpus not given.
constexpr int kGpusUnset = -1;
/// --gpus all.
constexpr int kGpusAll = 0;

/// The value of --gpus: kGpusAll for `all`, else a number >= 1; anything else is a usage error naming the flag.
inline int parse_gpus(const std::string& flag, const std::string& value) {
  if (value == "all") return kGpusAll;
  const int n = parse_int(flag, value);
  if (n < 1) usage_error(flag + " must be 'all' or a number >= 1, got '" + value + "'");
  return n;
}

/// Whether this build of the tools has a CUDA backend.
#if defined(CUDP_APPS_CUDA_VERSION)
constexpr bool kBuiltWithCuda = true;
#else
constexpr bool kBuiltWithCuda = false;
#endif

/// The CUDA ids process `process_on_node` of a world of `processes` takes, of `visible` devices (0 in a build
/// without CUDA): none when there are none and no number was asked for.
inline std::vector<int> choose_gpus(int gpus, int visible, int process_on_node, int processes) {
  if (visible < 1 && gpus >= 1)
    throw std::invalid_argument("--gpus " + std::to_string(gpus) + ": " +
                                (kBuiltWithCuda ? "no CUDA device found (CUDA_VISIBLE_DEVICES may hide them)"
                                                : "this build has no CUDA backend"));
  if (visible < 1) return {};
  if (gpus == kGpusUnset) gpus = processes > 1 ? 1 : kGpusAll;
  const int n = gpus == kGpusAll ? visible : gpus;
  if (n > visible)
    throw std::invalid_argument("--gpus " + std::to_string(gpus) + ": this process sees " + std::to_string(visible) +
                                " CUDA device(s) (CUDA_VISIBLE_DEVICES may hide others)");
  std::vector<int> ids;
  for (int i = 0; i < n; ++i) ids.push_back((process_on_node * n + i) % visible);
  return ids;
}

/// Said when `--backend auto` found no GPU to use in a build that could have used one: the run goes on, on the host.
inline void note_host_fallback() {
  if (kBuiltWithCuda) note("--backend auto: no CUDA device found; running on the host");
}

}  // namespace cudp::apps
