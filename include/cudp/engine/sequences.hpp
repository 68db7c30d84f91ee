#pragma once
// A read-only view of encoded sequences laid end to end, the form every engine entry point takes.
#include <cstddef>
#include <cstdint>

namespace cudp::engine {

struct SequencesView {
  const std::uint8_t* residues = nullptr;
  const std::uint64_t* offsets = nullptr;  // count+1 entries
  std::size_t count = 0;

  std::uint32_t length(std::size_t i) const { return static_cast<std::uint32_t>(offsets[i + 1] - offsets[i]); }
  const std::uint8_t* data(std::size_t i) const { return residues + offsets[i]; }
};

template <class Set>
SequencesView view_of(const Set& set) {
  return {set.residues.data(), set.offsets.data(), set.size()};
}

}  // namespace cudp::engine
