#pragma once
// A batch of encoded sequences in one contiguous buffer: the layout the engine copies to the device in one transfer.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "../host/default_init_allocator.hpp"
#include "error.hpp"

namespace cudp::io {

// Filled by the readers' threads, not zeroed first (host/default_init_allocator.hpp).
using ResidueBuffer = std::vector<std::uint8_t, host::DefaultInitAllocator<std::uint8_t>>;

struct SequenceSet {
  ResidueBuffer residues;                 // every sequence's codes, concatenated
  std::vector<std::uint64_t> offsets{0};  // sequence i is residues[offsets[i], offsets[i+1])
  std::vector<std::string> names;         // first word of the header
  std::vector<std::string> descriptions;  // rest of the header line (may be empty)

  // Lengths are 32-bit because the kernels index a sequence with 32-bit integers.
  static constexpr std::uint64_t max_sequence_length = std::numeric_limits<std::uint32_t>::max();

  std::size_t size() const { return names.size(); }
  std::uint32_t length(std::size_t i) const { return static_cast<std::uint32_t>(offsets[i + 1] - offsets[i]); }
  const std::uint8_t* data(std::size_t i) const { return residues.data() + offsets[i]; }
  std::uint64_t total_residues() const { return residues.size(); }

  std::uint32_t max_length() const {
    std::uint32_t longest = 0;
    for (std::size_t i = 0; i < size(); ++i) longest = std::max(longest, length(i));
    return longest;
  }

  void add(std::string_view name, std::string_view description, const std::uint8_t* codes, std::size_t n) {
    if (n > max_sequence_length) {
      throw InputError("sequence '" + std::string(name) + "' has " + std::to_string(n) + " residues; the limit is " +
                       std::to_string(max_sequence_length));
    }
    residues.insert(residues.end(), codes, codes + n);
    offsets.push_back(residues.size());
    names.emplace_back(name);
    descriptions.emplace_back(description);
  }
};

}  // namespace cudp::io
