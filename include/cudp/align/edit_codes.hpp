#pragma once
// Alignments as 2-bit edit codes, sixteen to a 32-bit word: what a device writes while it walks a traceback back
// from the end cell (so the last edit comes first), and their decoding into the EditRuns of an Alignment on the host.
// A walk knows only that a step was diagonal (kCodePair); whoever has the residues at hand turns it into
// kCodeMatch or kCodeMismatch (finish_leaf_codes in device_leaves.cuh does it on the device, lanes side by side),
// so that decoding is bit arithmetic on the words alone: a run costs a few instructions, a code almost none.
#include <cstdint>
#include <vector>

#include "../config.hpp"
#include "alignment.hpp"

namespace cudp::align {

// Code k of a walk sits in bits 2(k % 16) .. 2(k % 16) + 1 of word k / 16. A pair is 0 until classified, and a
// mismatch is a pair with both bits set: classifying ORs kCodeMismatch onto the pair's code.
constexpr std::uint32_t kCodePair = 0, kCodeMatch = 0, kCodeInsertion = 1, kCodeDeletion = 2, kCodeMismatch = 3;

CUDP_HD constexpr std::int64_t edit_code_words(std::int64_t codes) { return (codes + 15) / 16; }

namespace detail {

// The sixteen 2-bit codes of a word in reverse order.
constexpr std::uint32_t reverse_codes(std::uint32_t x) {
  x = (x >> 16) | (x << 16);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
}

// Codes 16w .. 16w + 15 of the alignment in its own order (first edit first), from `count` codes written last
// first; codes past the last are 0.
inline std::uint32_t forward_code_word(const std::uint32_t* words, std::int64_t count, std::int64_t w) {
  const std::int64_t top = count - 1 - 16 * w;  // the walk's index of this word's first code
  const std::int64_t at = top / 16;
  const std::uint64_t two = (static_cast<std::uint64_t>(words[at]) << 32) | (at > 0 ? words[at - 1] : 0u);
  const std::uint32_t walk_order = static_cast<std::uint32_t>(two >> (2 * (top % 16 + 1)));
  const std::int64_t valid = count - 16 * w;
  const std::uint32_t x = reverse_codes(walk_order);
  return valid >= 16 ? x : x & ((1u << (2 * valid)) - 1u);
}

inline EditOp edit_op_of_code(std::uint32_t code) {
  constexpr EditOp ops[4] = {EditOp::Match, EditOp::Insertion, EditOp::Deletion, EditOp::Mismatch};
  return ops[code & 3u];
}

}  // namespace detail

// The runs of `count` classified codes (written last first, as a walk writes them) into out[0, runs), returning
// out + runs; `out` has room for `count` runs. Run boundaries come from one XOR of each word with itself shifted by
// a code, so the inner loop turns once per run rather than once per code.
inline EditRun* decode_coded_edits(const std::uint32_t* words, std::int64_t count, EditRun* out) {
  if (count <= 0) return out;
  std::uint32_t code = detail::forward_code_word(words, count, 0) & 3u;  // the current run's
  std::int64_t start = 0;                                                 // and where it began
  const std::int64_t word_count = edit_code_words(count);
  for (std::int64_t w = 0; w < word_count; ++w) {
    const std::uint32_t x = detail::forward_code_word(words, count, w);
    const std::uint32_t differs = x ^ ((x << 2) | code);  // code f against code f - 1
    std::uint32_t starts = (differs | (differs >> 1)) & 0x55555555u;
    const std::int64_t valid = count - 16 * w;
    if (valid < 16) starts &= (1u << (2 * valid)) - 1u;
    while (starts != 0) {
      const int f = __builtin_ctz(starts) >> 1;
      const std::int64_t at = 16 * w + f;
      *out++ = EditRun{detail::edit_op_of_code(code), static_cast<int>(at - start)};
      start = at;
      code = (x >> (2 * f)) & 3u;
      starts &= starts - 1;
    }
  }
  *out++ = EditRun{detail::edit_op_of_code(code), static_cast<int>(count - start)};
  return out;
}

// Appends the edits of `count` classified codes to `edits`, merging a first run that continues their last one;
// `scratch` holds the runs on the way (one allocation of the exact size for `edits`, reused scratch across calls).
inline void append_coded_edits(const std::uint32_t* words, std::int64_t count, std::vector<EditRun>& edits,
                               std::vector<EditRun>& scratch) {
  if (count <= 0) return;
  if (scratch.size() < static_cast<std::size_t>(count)) scratch.resize(static_cast<std::size_t>(count));
  const EditRun* end = decode_coded_edits(words, count, scratch.data());
  const EditRun* from = scratch.data();
  if (!edits.empty() && edits.back().op == from->op) edits.back().length += (from++)->length;
  edits.insert(edits.end(), from, end);
}

inline void append_coded_edits(const std::uint32_t* words, std::int64_t count, std::vector<EditRun>& edits) {
  std::vector<EditRun> scratch;
  append_coded_edits(words, count, edits, scratch);
}

}  // namespace cudp::align
