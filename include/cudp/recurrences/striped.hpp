#pragma once
// The striped layout shared by the row-synchronous (Plan7) recurrences and the tiers that run them.
//
// A model of M columns (nodes k = 1..M) is cut into Q segments; a group of G lanes holds every segment, each lane
// one word per segment, each word Lane::width sub-words. Position p = width * lane + sub-word (0 .. width*G - 1)
// and segment q hold node k = p * Q + q + 1. Then node k-1 sits in the same word of segment q-1, so a row's
// diagonal dependency is a register move, except for segment 0, whose predecessors are the last segment's words
// moved up one position: the group's shift (one shuffle per row). Nodes past M pad the tail of that order, so
// they only ever feed other padding.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../config.hpp"

namespace cudp::recurrences {

// How a striped filter row sweep ended: with a score, or past the top of its arithmetic (+infinity).
enum class StripedStatus : std::int32_t { Ok = 0, Overflow = 1 };

struct StripedShape {
  int group = 1;     // G lanes
  int segments = 1;  // Q words per lane
  int width = 1;     // sub-words per word
  CUDP_HD int positions() const { return width * group; }
  CUDP_HD int capacity() const { return positions() * segments; }
  // Word index of (segment q, lane t) in a table holding one row of words per residue.
  CUDP_HD std::size_t word_index(int q, int lane) const {
    return static_cast<std::size_t>(q) * static_cast<std::size_t>(group) + static_cast<std::size_t>(lane);
  }
  CUDP_HD std::size_t words() const { return static_cast<std::size_t>(group) * static_cast<std::size_t>(segments); }
  // Node (1-based) stored in segment q, lane t, sub-word b; past M means padding.
  CUDP_HD int node(int q, int lane, int b) const { return (width * lane + b) * segments + q + 1; }
};

// Per-lane segment storage: a fixed register array on the device (Q known at compile time, loops unroll), a
// view of a run-time sized array on the host. Policies index both the same way.
template <class Word, int Q>
struct FixedSegments {
  Word v[Q];
  CUDP_HD static constexpr int size() { return Q; }
  CUDP_HD Word& operator[](int q) { return v[q]; }
  CUDP_HD const Word& operator[](int q) const { return v[q]; }
  CUDP_HD void resize(int) {}
};

template <class Word>
struct DynamicSegments {
  std::vector<Word> v;
  int size() const { return static_cast<int>(v.size()); }
  Word& operator[](int q) { return v[static_cast<std::size_t>(q)]; }
  const Word& operator[](int q) const { return v[static_cast<std::size_t>(q)]; }
  void resize(int Q) { v.assign(static_cast<std::size_t>(Q), Word{}); }
};

// A word moved up one position: sub-word b takes sub-word b-1, sub-word 0 takes the top sub-word of `below` (the
// word of the lane one rank down, or the fill value at the bottom of the group).
template <class L>
CUDP_HD typename L::word shift_in(typename L::word w, typename L::word below) {
  if constexpr (L::width == 1) {
    return below;
  } else {
    return static_cast<typename L::word>((w << L::bits) | (below >> (32 - L::bits)));
  }
}

// The largest sub-word of a lane word (lanes extract as signed or unsigned as they are).
template <class L>
CUDP_HD int horizontal_max(typename L::word w) {
  int best = L::extract(w, 0);
  CUDP_UNROLL
  for (int b = 1; b < L::width; ++b) best = best > L::extract(w, b) ? best : L::extract(w, b);
  return best;
}

}  // namespace cudp::recurrences
