#pragma once
// What HMMER 3.3.2's rescore_isolated_domain computes after an envelope's Forward and Backward matrices, in one
// sweep over the rows: posterior decoding (p7_Decoding), null2 by expectation (p7_Null2_ByExpectation) and the
// optimal-accuracy matrix (p7_OptimalAccuracy), then the traceback (p7_OATrace). The floats are HMMER's, bit for
// bit: the same operations in the same order as the three separate passes of plan7_posterior.hpp and
// plan7_traces.hpp, which tests/hmmer/plan7_envelope_test.cpp checks.
//
// Why one sweep: on a long model each of these matrices is tens of megabytes (a 2700-node model and a 2700-residue
// envelope: 87 MB), so with every core rescoring domains the passes over them are bound by memory bandwidth, not
// arithmetic. HMMER decodes into the Backward matrix, reads it again for optimal accuracy and again for null2, and
// writes the optimal-accuracy matrix over the Forward's: six streams over a matrix per domain. Here each row's
// posteriors go to a row buffer that null2 and optimal accuracy read while it is in cache, and are never stored;
// the traceback recomputes the few it reads from the Forward and Backward cells, which are kept. Three streams:
// read Forward, read Backward, write optimal accuracy.
#include <cstddef>
#include <vector>

#include "plan7_alphabet.hpp"
#include "plan7_posterior.hpp"
#include "plan7_traces.hpp"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

namespace cudp::hmmer {

// Scratch of one thread for envelope_posteriors.
struct EnvelopeScratch {
  std::vector<float> factors;   // decoding_rows' factor per row
  std::vector<float> specials;  // posterior special states, rows 0..L in StripedMatrix's layout
  std::vector<Lanes4> row;      // one row of posterior cells
  ExpectedUsage usage;          // null2's sums of posteriors
};

// A posterior read by the traceback: Forward times Backward times the row's factor, as decode_row computes it.
struct ProductPosteriors {
  const StripedMatrix& fwd;
  const StripedMatrix& bck;
  const EnvelopeScratch& scratch;
  float special(int i, StripedMatrix::Special s) const {
    return scratch.specials[static_cast<std::size_t>(i) * StripedMatrix::kSpecials + s];
  }
  float node(int i, int k, StripedMatrix::Cell c) const {
    CUDP_PLAN7_NO_FP_CONTRACT
    if (c == StripedMatrix::kD) return 0.0f;
    return (fwd.node(i, k, c) * bck.node(i, k, c)) * scratch.factors[static_cast<std::size_t>(i)];
  }
};

// The posterior pass over an envelope whose Forward (`fwd`) and Backward (`bck`, on the Forward's scale factors
// unless it has its own) matrices are full: fills `ox` with the optimal-accuracy matrix and returns its traceback
// in `oa` (and `columns`, if given); with `null2`, also the envelope's null2 odds per residue code. Both matrices
// are left as they were. Returns false where p7_Decoding returns eslERANGE; nothing else is then meaningful.
inline bool envelope_posteriors(const StripedOddsProfile& om, const Plan7Alphabet& alphabet, const StripedMatrix& fwd,
                                const StripedMatrix& bck, EnvelopeScratch& scratch, StripedMatrix& ox,
                                OptimalAccuracyResult& oa, std::vector<float>* null2 = nullptr,
                                std::vector<AlignedColumn>* columns = nullptr) {
  CUDP_PLAN7_NO_FP_CONTRACT
  using SM = StripedMatrix;
  const int L = fwd.L;
  const int Q = om.Q();
  scratch.specials.resize((static_cast<std::size_t>(L) + 1) * SM::kSpecials);
  if (!decoding_rows(om, fwd, bck, scratch.factors, scratch.specials.data())) return false;
  const ProductPosteriors posteriors{fwd, bck, scratch};
  scratch.row.resize(static_cast<std::size_t>(Q) * 3);
  optimal_accuracy_start(om, L, ox);
  for (int i = 1; i <= L; ++i) {
    decode_row(Q, fwd.row(i), bck.row(i), scratch.factors[static_cast<std::size_t>(i)], scratch.row.data());
    const float n = posteriors.special(i, SM::kN), j = posteriors.special(i, SM::kJ);
    const float c = posteriors.special(i, SM::kC);
    if (null2 != nullptr) scratch.usage.add_row(Q, scratch.row.data(), n, c, j);
    optimal_accuracy_row(om, scratch.row.data(), n, j, c, i, ox);
  }
  if (null2 != nullptr) scratch.usage.finish(om, alphabet, *null2);
  oa = optimal_accuracy_trace(om, ox, posteriors, columns);
  return true;
}

// One envelope rescored alone, as HMMER's rescore_isolated_domain computes it, wherever it was computed.
struct RescoredEnvelope {
  bool decoded = false;  // false where p7_Decoding's scale product overflowed (eslERANGE): HMMER drops the envelope
  float env_nats = 0;    // the envelope's unihit Forward score
  OptimalAccuracyResult oa;
  std::vector<float> null2;            // when asked: null2 odds per residue code
  std::vector<AlignedColumn> columns;  // when asked: the alignment's columns, residues 1-based in the envelope
};

// A thread's matrices and scratch for rescore_envelope.
struct EnvelopeWorkspace {
  StripedMatrix fwd, bck, oa;
  EnvelopeScratch scratch;
};

// rescore_isolated_domain on the host: `om` in unihit mode for the envelope's whole target (request.xf is then
// om.xf()); Forward and Backward with full matrices, then the posterior sweep.
inline void rescore_envelope(const StripedOddsProfile& om, const Plan7Alphabet& alphabet,
                             const EnvelopeRequest& request, bool columns, EnvelopeWorkspace& ws,
                             RescoredEnvelope& out) {
  const int Ld = static_cast<int>(request.length);
  out.env_nats = striped_forward(om, request.residues, Ld, ws.fwd, true);
  striped_backward(om, request.residues, Ld, ws.fwd, ws.bck, true);
  out.decoded = envelope_posteriors(om, alphabet, ws.fwd, ws.bck, ws.scratch, ws.oa, out.oa,
                                    request.null2 ? &out.null2 : nullptr, columns ? &out.columns : nullptr);
}

// Envelope j of a batch rescored on a device, finished on the host: its score from the Forward's special rows
// (the library's log, as striped_forward sums it) and its null2 from the device's sums, by the same code as above.
inline void adopt_rescored_envelope(const StripedOddsProfile& om, const Plan7Alphabet& alphabet,
                                    const EnvelopeRequest& request, const EnvelopeBatch& batch, std::size_t j,
                                    EnvelopeScratch& scratch, RescoredEnvelope& out) {
  const int Ld = static_cast<int>(request.length);
  StripedMatrix fwd;
  adopt_parser_specials(fwd, om.M(), om.Q(), Ld, batch.forward_rows.data() + batch.first_row[j] * kSpecialCount,
                        true, true);
  out.env_nats = forward_parser_score(om, fwd);
  out.decoded = batch.decoded[j] != 0;
  const std::int32_t* c = batch.coordinates.data() + j * 5;
  out.oa.expected_correct = batch.expected_correct[j];
  out.oa.sq_from = c[0];
  out.oa.sq_to = c[1];
  out.oa.hmm_from = c[2];
  out.oa.hmm_to = c[3];
  out.oa.ok = c[4] != 0;
  out.null2.clear();
  if (request.null2 && out.decoded) {
    scratch.usage.adopt(om.Q(), batch.usage.data() + batch.first_usage[j], Ld);
    scratch.usage.finish(om, alphabet, out.null2);
  }
  out.columns.clear();
  if (!batch.columns.empty()) {
    for (std::uint64_t f = batch.first_column[j]; f < batch.first_column[j + 1]; ++f) {
      const EnvelopeColumn& e = batch.columns[f];
      out.columns.push_back(AlignedColumn{static_cast<TraceState>(e.state), e.k, e.i, e.pp});
    }
  }
}

}  // namespace cudp::hmmer

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
