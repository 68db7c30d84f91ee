#pragma once
/// \file
/// The striped layout shared by the row-synchronous (Plan7) recurrences and the tiers that run them.
///
/// A model of M columns (nodes k = 1..M) is cut into Q segments; a group of G lanes holds every segment, each lane
/// one word per segment, each word Lane::width sub-words. Position p = width * lane + sub-word (0 .. width*G - 1)
/// and segment q hold node k = p * Q + q + 1. Then node k-1 sits in the same word of segment q-1, so a row's
/// diagonal dependency is a register move, except for segment 0, whose predecessors are the last segment's words
/// moved up one position: the group's shift (one shuffle per row). Nodes past M pad the tail of that order, so
/// they only ever feed other padding.
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "../config.hpp"

namespace cudp::recurrences {

/// How a striped filter row sweep ended: with a score, or past the top of its arithmetic (+infinity).
enum class StripedStatus : std::int32_t { Ok = 0, Overflow = 1 };

/// The shape of a striped model: G lanes of Q words of `width` sub-words (the layout of the file's description).
struct StripedShape {
  int group = 1;     ///< G lanes
  int segments = 1;  ///< Q words per lane
  int width = 1;     ///< sub-words per word
  /// \name Sizes
  //@{
  /// `positions()`: sub-words across the group (width * G); `capacity()`: nodes the shape holds (positions * Q).
  CUDP_HD int positions() const { return width * group; }
  CUDP_HD int capacity() const { return positions() * segments; }
  //@}
  /// Word index of (segment q, lane t) in a table row: a lane's segments are contiguous, so that it reads them
  /// with 16-byte loads (segments come in multiples of 4 on the device). Runs start an odd number of 16-byte
  /// chunks apart, so that the 8 lanes of a load phase hit 8 different bank groups.
  CUDP_HD int lane_stride() const { return segments % 8 == 0 ? segments + 4 : segments; }
  /// The word of segment q of lane `lane` within a table row.
  CUDP_HD std::size_t word_index(int q, int lane) const {
    return static_cast<std::size_t>(lane) * static_cast<std::size_t>(lane_stride()) + static_cast<std::size_t>(q);
  }
  /// Start of lane t's run of segment words in table row r.
  template <class Word>
  CUDP_HD const Word* lane_words(const Word* table, int r, int lane) const {
    return table + static_cast<std::size_t>(r) * words() + word_index(0, lane);
  }
  /// Words in a table row: G runs of lane_stride() words.
  CUDP_HD std::size_t words() const { return static_cast<std::size_t>(group) * static_cast<std::size_t>(lane_stride()); }
  /// Node (1-based) stored in segment q, lane t, sub-word b; past M means padding.
  CUDP_HD int node(int q, int lane, int b) const { return (width * lane + b) * segments + q + 1; }
};

/// Per-lane segment storage: a fixed register array on the device (Q known at compile time, loops unroll), a
/// view of a run-time sized array on the host. Policies index both the same way.
template <class Word, int Q>
struct FixedSegments {
  /// \name Storage
  //@{
  /// The words and the array interface policies use: size(), operator[], resize() (a no-op: Q is fixed).
  Word v[Q];
  CUDP_HD static constexpr int size() { return Q; }
  CUDP_HD Word& operator[](int q) { return v[q]; }
  CUDP_HD const Word& operator[](int q) const { return v[q]; }
  CUDP_HD void resize(int) {}
  //@}
};

/// Q of a compile-time segment array, 0 for a run-time sized one.
template <class Seg>
inline constexpr int fixed_segments_v = 0;
/// A FixedSegments array's Q.
template <class Word, int Q>
inline constexpr int fixed_segments_v<FixedSegments<Word, Q>> = Q;

/// Per-lane segment storage sized at run time (the host's): the interface of FixedSegments.
template <class Word>
struct DynamicSegments {
  /// \name Storage
  //@{
  /// The words and the array interface: size(), operator[], resize(Q) (Q words of zero).
  std::vector<Word> v;
  int size() const { return static_cast<int>(v.size()); }
  Word& operator[](int q) { return v[static_cast<std::size_t>(q)]; }
  const Word& operator[](int q) const { return v[static_cast<std::size_t>(q)]; }
  void resize(int Q) { v.assign(static_cast<std::size_t>(Q), Word{}); }
};

/// Words q .. q+3 of a lane's run (fewer at the end of a host run): one 16-byte load on the device, where runs
/// are 16-byte aligned and hold a multiple of 4 words.
template <class Word, class Seg>
CUDP_HD void load_four(const Word* run, int q, const Seg& segments, Word (&out)[4]) {
#if CUDP_DEVICE_PASS
  static_assert(sizeof(Word) == 4, "32-bit lane words");
  if constexpr (std::is_same_v<Word, float>) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(run + q));
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
    out[3] = v.w;
  } else {  // integer lane words: the bits as they are
    const uint4 v = __ldg(reinterpret_cast<const uint4*>(run + q));
    out[0] = static_cast<Word>(v.x);
    out[1] = static_cast<Word>(v.y);
    out[2] = static_cast<Word>(v.z);
    out[3] = static_cast<Word>(v.w);
  }
#else
  for (int j = 0; j < 4; ++j) out[j] = q + j < segments.size() ? run[q + j] : Word{};
#endif
}

/// Per-lane node constants of a striped policy (the rows of its transition table, named by the enum Rows, which
/// ends with Count): in registers while Q is at most MaxInRegisters (or on the host), else read from the L1-cached
/// table four segments at a time.
template <class Word, class Seg, class Rows, int MaxInRegisters>
struct TransitionColumns {
  /// \name Layout
  //@{
  /// `rows`: the table's rows (Rows::Count); `in_registers`: whether this lane holds them in registers.
  static constexpr int rows = static_cast<int>(Rows::Count);
  static constexpr bool in_registers = fixed_segments_v<Seg> == 0 || fixed_segments_v<Seg> <= MaxInRegisters;
  //@}
  /// The rows held in registers (or host vectors): one segment array per row.
  struct Registers {
    /// \name Rows
    //@{
    /// The rows, and their resize for a model of Q segments.
    Seg row[rows];
    void resize(int Q) {
      for (auto& r : row) r.resize(Q);
    }
    //@}
  };
  /// Nothing held: the rows are read from the table.
  struct NoStorage {
    /// Nothing to size.
    void resize(int) {}
  };
  /// \name State
  //@{
  /// What the lane holds, and where the rest is read: the table, its shape, the lane's rank in its group.
  std::conditional_t<in_registers, Registers, NoStorage> held;
  const Word* table = nullptr;
  StripedShape shape;
  int lane = 0;
  //@}

  /// Sizes the held rows for Q segments (host runs).
  void resize(int Q) { held.resize(Q); }
  /// From the model's `transitions` table (Rows::Count rows) and `shape`, for this lane of the group.
  template <class Model, class Group>
  CUDP_HD void load(const Model& md, const Group& g) {
    table = md.transitions;
    shape = md.shape;
    lane = g.lane();
    if constexpr (in_registers) {
      CUDP_UNROLL
      for (int t = 0; t < rows; ++t) {
        const Word* run = shape.lane_words(table, t, lane);
        CUDP_UNROLL
        for (int q = 0; q < held.row[t].size(); ++q) held.row[t][q] = run[q];
      }
    }
  }
  /// Row t of segments q0 .. q0+3 (zero past the end of a host run).
  CUDP_HD void quad(Rows t, int q0, const Seg& like, Word (&out)[4]) const {
    const int r = static_cast<int>(t);
    if constexpr (in_registers) {
      CUDP_UNROLL
      for (int j = 0; j < 4; ++j) out[j] = q0 + j < like.size() ? held.row[r][q0 + j] : Word{};
    } else {
      load_four(shape.lane_words(table, r, lane), q0, like, out);
    }
  }
  /// Row t of the last segment.
  CUDP_HD Word last(Rows t, const Seg& like) const {
    const int r = static_cast<int>(t);
    if constexpr (in_registers) {
      return held.row[r][like.size() - 1];
    } else {
      return shape.lane_words(table, r, lane)[like.size() - 1];
    }
  }
};

/// The DP words of a profile HMM row: match, insert and delete states per segment.
template <class Seg>
struct MatchInsertDelete {
  /// \name States
  //@{
  /// The match, insert and delete words, and their resize for Q segments.
  Seg m, ins, d;
  void resize(int Q) {
    m.resize(Q);
    ins.resize(Q);
    d.resize(Q);
  }
  //@}
  //@}
};

/// A word moved up one position: sub-word b takes sub-word b-1, sub-word 0 takes the top sub-word of `below` (the
/// word of the lane one rank down, or the fill value at the bottom of the group).
template <class L>
CUDP_HD typename L::word shift_in(typename L::word w, typename L::word below) {
  if constexpr (L::width == 1) {
    return below;
  } else if constexpr (sizeof(typename L::word) == 4) {
    return static_cast<typename L::word>((w << L::bits) | (below >> (32 - L::bits)));
  } else {
    return L::shift_up(w, below);  // wider host words (lanes/sse.hpp)
  }
}

/// The largest sub-word of a lane word (lanes extract as signed or unsigned as they are).
template <class L>
CUDP_HD int horizontal_max(typename L::word w) {
  if constexpr (sizeof(typename L::word) > 4) return L::hmax(w);  // wider host words reduce in registers
  int best = L::extract(w, 0);
  CUDP_UNROLL
  for (int b = 1; b < L::width; ++b) best = best > L::extract(w, b) ? best : L::extract(w, b);
  return best;
}

}  // namespace cudp::recurrences
