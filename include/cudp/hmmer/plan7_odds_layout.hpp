#pragma once
// The plain parts of the probability-space profile and its matrices (plan7_odds_profile.hpp, plan7_posterior.hpp):
// the order of the striped transitions, the special states' transitions and their length model, the numbering of
// a matrix's special rows, and the tables and parser rows as plain floats. Free of the host's SIMD lane type, so
// that CUDA code (hmmer/device_parsers.cuh) can take and hand back the same things.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudp::hmmer {

// HMMER's p7O_{BM,MM,IM,DM,MD,MI,II} order of the seven transitions stored per striped vector.
enum OddsTransition { kOddsBM = 0, kOddsMM, kOddsIM, kOddsDM, kOddsMD, kOddsMI, kOddsII };

// Transition probabilities of the special states as HMMER's xf[][] holds them.
struct OddsSpecials {
  float n_loop = 0, n_move = 0;
  float e_loop = 0, e_move = 0;
  float c_loop = 0, c_move = 0;
  float j_loop = 0, j_move = 0;
};

// `e` (a profile's specials, multihit or unihit) with N, J and C set for targets of length L, as
// p7_oprofile_ReconfigLength computes them in float.
inline OddsSpecials specials_for_length(OddsSpecials e, bool multihit, std::int64_t L) {
  const float expected_j_uses = multihit ? 1.0f : 0.0f;
  const float pmove = (2.0f + expected_j_uses) / (static_cast<float>(L) + 2.0f + expected_j_uses);
  const float ploop = 1.0f - pmove;
  e.n_loop = e.c_loop = e.j_loop = ploop;
  e.n_move = e.c_move = e.j_move = pmove;
  return e;
}

// The specials of multihit mode for targets of length L, as StripedOddsProfile::set_mode(true, L) sets them.
inline OddsSpecials multihit_specials(std::int64_t L) {
  OddsSpecials e;
  e.e_move = e.e_loop = 0.5f;
  return specials_for_length(e, true, L);
}

// A matrix row's special states, in the order StripedMatrix stores them, with the row's scale factor last.
enum OddsSpecialState { kSpecialE = 0, kSpecialN, kSpecialJ, kSpecialB, kSpecialC, kSpecialScale, kSpecialCount };

// The odds profile's tables as floats, four lanes a striped vector: match odds [x][q][4], transitions
// [q][7][4] in OddsTransition order, D->D [q][4]; xf in multihit mode.
struct OddsTables {
  int M = 0, Q = 2;
  OddsSpecials xf;
  std::vector<float> match, transitions, dd;
};

// The special rows of a target's Forward and Backward parser matrices, computed elsewhere (the GPU) in HMMER's
// order of operations: rows 0..L of kSpecialCount floats each. That is all that domain definition reads from the
// two parsers.
struct ParserSpecials {
  const float* forward = nullptr;
  const float* backward = nullptr;
  bool backward_own_scales = false;  // the Backward switched to its own scale factors (see striped_backward)
};

// The parser rows of several targets one after another, as a device hands them back for a batch of targets.
struct ParserRowsBatch {
  std::vector<float> forward, backward;           // every target's rows
  std::vector<std::uint64_t> first_row;           // per target, the index of its row 0
  std::vector<std::uint8_t> backward_own_scales;  // per target
  std::size_t size() const { return first_row.size(); }
  ParserSpecials at(std::size_t j) const {
    const std::size_t offset = first_row[j] * kSpecialCount;
    return {forward.data() + offset, backward.data() + offset, backward_own_scales[j] != 0};
  }
};

// The device memory of both passes' cells kept over a target of `length` residues: rows 0..length of 48 Q bytes
// each (Q vectors of M, D and I cells of 4 floats), twice.
inline std::uint64_t kept_cells_bytes(int Q, std::uint64_t length) {
  return (length + 1) * 2 * 48 * static_cast<std::uint64_t>(Q);
}

// Every row's cells of both passes over a batch of targets, what striped_forward and striped_backward keep with
// keep_all_rows: per target, rows 0..L of Q vectors of (M, D, I) cells of 4 lanes, StripedMatrix's row layout. The
// Backward's row 0 has no cells (nothing reads them); its rows 1..L do.
struct ParserCellsBatch {
  int Q = 0;
  std::vector<float> forward, backward;
  std::vector<std::uint64_t> first_float;  // per target, where its row 0 starts
  std::size_t row_floats() const { return static_cast<std::size_t>(Q) * 12; }
  const float* forward_row(std::size_t j, int i) const {
    return forward.data() + first_float[j] + static_cast<std::size_t>(i) * row_floats();
  }
  const float* backward_row(std::size_t j, int i) const {
    return backward.data() + first_float[j] + static_cast<std::size_t>(i) * row_floats();
  }
};

// One envelope to rescore alone (HMMER's rescore_isolated_domain): its residues, and the special transitions of
// the profile in unihit mode for its whole target's length.
struct EnvelopeRequest {
  const std::uint8_t* residues = nullptr;  // the envelope's first residue
  std::uint32_t length = 0;                // residues in the envelope, at least 1
  OddsSpecials xf;
  bool null2 = false;  // also the sums that null2 by expectation needs
};

// An optimal-accuracy column as a device hands it back: TraceState's value, node, residue (1-based in the
// envelope, 0 for D) and posterior.
struct EnvelopeColumn {
  std::int32_t state = 0, k = 0, i = 0;
  float pp = 0;
};

// What a device hands back for a batch of envelopes, in the batch's order: enough for the host to finish each one
// as rescore_envelope (plan7_envelope.hpp) does, with no matrix crossing the bus.
struct EnvelopeBatch {
  int Q = 0;
  std::vector<float> forward_rows;         // every envelope's Forward special rows 0..Ld (for its score)
  std::vector<std::uint64_t> first_row;    // per envelope, the index of its row 0 in forward_rows
  std::vector<std::uint8_t> decoded;       // per envelope: 0 where p7_Decoding's scale product overflowed
  std::vector<float> usage;                // per envelope asking for null2: Q vectors of (M, I) x 4 lanes, then N, C, J
  std::vector<std::uint64_t> first_usage;  // per envelope, where its usage starts (unused without null2)
  std::vector<float> expected_correct;     // per envelope: the optimal-accuracy matrix's C at row Ld
  std::vector<std::int32_t> coordinates;   // per envelope: sq_from, sq_to, hmm_from, hmm_to, ok
  std::vector<EnvelopeColumn> columns;     // when asked: every envelope's columns, first to last M
  std::vector<std::uint64_t> first_column; // per envelope, where its columns start; one more entry at the end
  std::size_t size() const { return first_row.size(); }
  std::size_t usage_floats() const { return static_cast<std::size_t>(Q) * 8 + 3; }
};

}  // namespace cudp::hmmer
