#pragma once
// The device parsers behind a plain C++ call, so that the test comparing them with the host's (which needs the
// host's SIMD lanes, unknown to CUDA code) is an ordinary C++ file.
#include <cstdint>
#include <vector>

#include "cudp/hmmer/plan7_odds_layout.hpp"

namespace cudp::test {

hmmer::ParserRowsBatch run_device_parsers(const hmmer::OddsTables& tables,
                                          const std::vector<const std::uint8_t*>& residues,
                                          const std::vector<std::uint32_t>& lengths, std::uint64_t room_bytes);

// The same, keeping every row's cells of both passes (into `cells`), target j with the special transitions
// length_models[j].
hmmer::ParserRowsBatch run_device_full_passes(const hmmer::OddsTables& tables,
                                              const std::vector<const std::uint8_t*>& residues,
                                              const std::vector<std::uint32_t>& lengths,
                                              const std::vector<hmmer::OddsSpecials>& length_models,
                                              std::uint64_t room_bytes, hmmer::ParserCellsBatch& cells);

// run_device_parsers called off by another thread `delay_ms` milliseconds after it starts (0: before); returns
// what the call wrote, which the caller must not trust.
hmmer::ParserRowsBatch run_device_parsers_called_off(const hmmer::OddsTables& tables,
                                                     const std::vector<const std::uint8_t*>& residues,
                                                     const std::vector<std::uint32_t>& lengths, int delay_ms);

}  // namespace cudp::test
