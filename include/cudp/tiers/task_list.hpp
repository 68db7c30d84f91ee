#pragma once
// The packed form of a batch of targets that every tier consumes. Targets are grouped `Width` at a time (one per
// lane of a packed score word) into tasks; a task's residues are stored row by row, lanes interleaved, so row i of
// all its targets is one Width-byte load. Shorter targets in a task are padded with the pad code.
#include <cstdint>

#include "../config.hpp"

namespace cudp::tiers {

// Sentinel for an empty lane: a task holding fewer than Width targets.
constexpr std::uint32_t kNoTarget = 0xffffffffu;

template <int Width>
struct TaskList {
  const std::uint8_t* residues = nullptr;          // task t, row i (1-based), lane k: residues[offsets[t] + (i-1)*Width + k]
  const std::uint64_t* offsets = nullptr;          // per task; multiples of 16 bytes
  const std::int32_t* lengths = nullptr;           // per task*Width: each lane's target length (0 for an empty lane)
  const std::int32_t* rows = nullptr;              // per task: its longest lane
  const std::uint32_t* targets = nullptr;          // per task*Width: the slot of the score array each lane writes
  const std::uint64_t* boundary_offsets = nullptr; // per task: first slot of its strip-boundary buffer (rows+1 slots)
  int count = 0;
};

// Substitution scores of the query, one row per target residue code plus one pad row; row a, column j-1 holds
// the score of target code a against query residue j. Columns past the query hold the pad score.
template <class Scalar>
struct ProfileView {
  const Scalar* data = nullptr;
  int stride = 0;  // columns per row, a multiple of every tier's strip width
  int rows = 0;    // alphabet size + 1; the last row is the pad row
};

// Loads a task row's Width residue codes as one word (the streams are 16-byte aligned and row-major).
template <int Width>
CUDP_HD unsigned load_row_codes(const std::uint8_t* row) {
  if constexpr (Width == 1) return row[0];
  else if constexpr (Width == 2) return *reinterpret_cast<const std::uint16_t*>(row);
  else return *reinterpret_cast<const std::uint32_t*>(row);
}

// Lane masks of a row: lanes whose target has this row, and lanes whose target ends at it.
template <class L>
struct RowMasks {
  typename L::word present, ending;
  CUDP_HD static RowMasks at(const int (&lengths)[L::width], int i) {
    unsigned present = 0, ending = 0;
    CUDP_UNROLL
    for (int k = 0; k < L::width; ++k) {
      present |= (i <= lengths[k] ? 1u : 0u) << k;
      ending |= (i == lengths[k] ? 1u : 0u) << k;
    }
    return {L::mask_from_bits(present), L::mask_from_bits(ending)};
  }
};

}  // namespace cudp::tiers
