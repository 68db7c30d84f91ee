#pragma once
// What an aligner returns: where the alignment lies in both sequences, its edit string, its score, and the counts
// that BLAST tabular and EMBOSS pair outputs print. `rescore` walks an alignment and recomputes its score from the
// substitution matrix and gap costs alone, so that every producer of alignments (full traceback, Myers-Miller
// midpoints, the GPU) is checked against the DP score it claims.
#include <charconv>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../recurrences/gotoh.hpp"

namespace cudp::align {

// SAM's letters with the query as the read: I takes a query residue against a gap, D a target residue.
enum class EditOp : char { Match = '=', Mismatch = 'X', Insertion = 'I', Deletion = 'D' };

struct EditRun {
  EditOp op;
  int length;
  bool operator==(const EditRun& o) const { return op == o.op && length == o.length; }
};

struct Alignment {
  long score = 0;
  // Half-open ranges, 0-based: the alignment covers query[query_begin, query_end) and target[target_begin,
  // target_end). An empty alignment (a local score of 0) covers nothing.
  int query_begin = 0, query_end = 0;
  int target_begin = 0, target_end = 0;
  std::vector<EditRun> edits;
};

// Appends `length` of `op`, merging with the last run.
inline void append(std::vector<EditRun>& edits, EditOp op, int length = 1) {
  if (length <= 0) return;
  if (!edits.empty() && edits.back().op == op)
    edits.back().length += length;
  else
    edits.push_back({op, length});
}

// Appends one CIGAR operation, `length` then `op`, with no string made on the way (two temporary strings a run
// cost about a tenth of cudp-align's SAM formatting).
inline void append_cigar_op(std::string& s, int length, char op) {
  char digits[16];
  const auto end = std::to_chars(digits, digits + sizeof digits, length).ptr;
  s.append(digits, end);
  s.push_back(op);
}

// "12=1X3I": the extended CIGAR.
inline std::string cigar(const Alignment& a) {
  std::string s;
  s.reserve(a.edits.size() * 4);
  for (const EditRun& r : a.edits) append_cigar_op(s, r.length, static_cast<char>(r.op));
  return s;
}

struct AlignmentCounts {
  int length = 0;      // columns
  int identities = 0;  // '=' columns
  int positives = 0;   // aligned pairs scoring above 0
  int mismatches = 0;  // 'X' columns
  int gap_opens = 0;   // gap runs
  int gaps = 0;        // gap columns
};

namespace detail {
[[noreturn]] inline void bad_alignment(const std::string& why) { throw std::invalid_argument("alignment: " + why); }
}  // namespace detail

// Walks the edits over the two ranges and checks that they consume them exactly, that '=' pairs equal codes and
// 'X' different ones; calls pair(q, t) for each aligned pair and gap(op, length) for each gap run.
template <class Pair, class Gap>
void walk(const Alignment& a, const std::uint8_t* query, int m, const std::uint8_t* target, int n, Pair pair, Gap gap) {
  if (a.query_begin < 0 || a.query_begin > a.query_end || a.query_end > m || a.target_begin < 0 ||
      a.target_begin > a.target_end || a.target_end > n)
    detail::bad_alignment("ranges outside the sequences");
  int q = a.query_begin, t = a.target_begin;
  for (const EditRun& r : a.edits) {
    if (r.length <= 0) detail::bad_alignment("an edit run of length " + std::to_string(r.length));
    switch (r.op) {
      case EditOp::Match:
      case EditOp::Mismatch:
        if (q + r.length > a.query_end || t + r.length > a.target_end) detail::bad_alignment("edits pass the ranges");
        for (int k = 0; k < r.length; ++k, ++q, ++t) {
          if ((query[q] == target[t]) != (r.op == EditOp::Match))
            detail::bad_alignment(std::string("'") + static_cast<char>(r.op) + "' at query " + std::to_string(q + 1) +
                                  ", target " + std::to_string(t + 1) + " does not fit the residues");
          pair(query[q], target[t]);
        }
        break;
      case EditOp::Insertion:
        if (q + r.length > a.query_end) detail::bad_alignment("edits pass the query range");
        q += r.length;
        gap(r.op, r.length);
        break;
      case EditOp::Deletion:
        if (t + r.length > a.target_end) detail::bad_alignment("edits pass the target range");
        t += r.length;
        gap(r.op, r.length);
        break;
      default:
        detail::bad_alignment("unknown edit");
    }
  }
  if (q != a.query_end || t != a.target_end) detail::bad_alignment("edits end before the ranges do");
}

// The score of an alignment under Gotoh's costs (a gap of k costs open + k * extend); matrix(target_code,
// query_code) as everywhere in cudp. Checks the edits against the residues and the mode's ends: global covers
// both sequences whole, semi-global starts on the first residue of one of them and ends on the last of one.
template <class Matrix>
long rescore(const Alignment& a, recurrences::AlignMode mode, const std::uint8_t* query, int m,
             const std::uint8_t* target, int n, const Matrix& matrix, recurrences::GapCosts gaps) {
  using recurrences::AlignMode;
  if (mode == AlignMode::Global && (a.query_begin != 0 || a.target_begin != 0 || a.query_end != m || a.target_end != n))
    detail::bad_alignment("a global alignment must cover both sequences");
  if (mode == AlignMode::SemiGlobal && !a.edits.empty() &&
      ((a.query_begin != 0 && a.target_begin != 0) || (a.query_end != m && a.target_end != n)))
    detail::bad_alignment("a semi-global alignment must start and end on an edge of the matrix");
  long score = 0;
  walk(
      a, query, m, target, n, [&](std::uint8_t q, std::uint8_t t) { score += matrix(t, q); },
      [&](EditOp, int length) { score -= gaps.open + static_cast<long>(length) * gaps.extend; });
  return score;
}

template <class Matrix>
AlignmentCounts counts_of(const Alignment& a, const std::uint8_t* query, int m, const std::uint8_t* target, int n,
                          const Matrix& matrix) {
  AlignmentCounts c;
  walk(
      a, query, m, target, n,
      [&](std::uint8_t q, std::uint8_t t) {
        ++c.length;
        c.identities += q == t;
        c.mismatches += q != t;
        c.positives += matrix(t, q) > 0;
      },
      [&](EditOp, int length) {
        c.length += length;
        ++c.gap_opens;
        c.gaps += length;
      });
  return c;
}

}  // namespace cudp::align
