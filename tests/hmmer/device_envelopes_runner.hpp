#pragma once
// The device's envelope rescoring behind a plain C++ call, so that the test comparing it with the host's (which
// needs the host's SIMD lanes, unknown to CUDA code) is an ordinary C++ file.
#include <cstdint>
#include <vector>

#include "cudp/hmmer/plan7_odds_layout.hpp"

namespace cudp::test {

hmmer::EnvelopeBatch run_device_envelopes(const hmmer::OddsTables& tables,
                                          const std::vector<hmmer::EnvelopeRequest>& requests, bool columns,
                                          std::uint64_t room_bytes, double* passes_seconds = nullptr,
                                          double* sweep_seconds = nullptr);

}  // namespace cudp::test
