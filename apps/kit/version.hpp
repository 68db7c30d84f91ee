#pragma once
/// \file
/// What `tool --version` prints: the tool, cudp's version, and what this build can run on, so that a recorded
/// version also says whether a GPU or several processes could have been used.
#include <string>

#include <cudp/version.hpp>

namespace cudp::apps {

/// "cudp-swsearch 0.1.0" and a line of the build's parts (the CUDA backend, the host's vector lanes, MPI).
inline std::string version_text(const char* tool) {
  std::string parts;
  const auto add = [&parts](const std::string& part) { parts += (parts.empty() ? "" : ", ") + part; };
#if defined(CUDP_APPS_CUDA_VERSION)
  add("CUDA backend (CUDA " CUDP_APPS_CUDA_VERSION ")");
#else
  add("no CUDA backend");
#endif
#if defined(CUDP_HAS_HOST_VECTOR)
  add("host vector lanes (Highway)");
#else
  add("scalar host lanes");
#endif
#if defined(CUDP_HAS_MPI)
  add("MPI");
#endif
  return std::string(tool) + " " CUDP_VERSION_STRING "\nbuilt with: " + parts + "\n";
}

}  // namespace cudp::apps
