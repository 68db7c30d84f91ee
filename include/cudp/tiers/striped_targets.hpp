#pragma once
// The targets of a striped-rows run: ids[i] indexes the database (offsets, residues); result i belongs to ids[i].
#include <cstdint>

namespace cudp::tiers {

struct StripedTargets {
  const std::uint8_t* residues = nullptr;
  const std::uint64_t* offsets = nullptr;
  const std::uint32_t* ids = nullptr;
  std::uint32_t count = 0;
};

}  // namespace cudp::tiers
