#pragma once
// What the Plan7 pipeline reports for a target that passes (hmmer/plan7_pipeline.hpp): the sequence's scores and its
// domains, in the form hmmsearch's tables and text output print them.
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace cudp::hmmer {

// An E-value, exp(lnP) times a search space, as HMMER's programs compute it. They run with the x86 FTZ and DAZ bits
// set (float_mode.hpp), also on the thread that prints: a P-value or E-value below the normal double range is 0
// there, never a subnormal such as 3.9e-311 (a hit of about 1020 to 1075 bits). Emulated here, so the result does
// not depend on the calling thread's mode or the CPU.
inline double flushed_to_zero(double x) { return std::fabs(x) < DBL_MIN ? 0.0 : x; }
inline double evalue(double lnP, double search_space) {
  return flushed_to_zero(flushed_to_zero(std::exp(lnP)) * search_space);
}

// A domain's alignment as hmmsearch shows it (p7_alidisplay_Create): one column per state of the optimal-accuracy
// trace, from its first to its last match state. Four rows of equal length: the model's consensus residue ('.' at
// an insert), the match line (the residue where it is the consensus one, '+' where its emission odds exceed 1,
// else ' '), the target (upper case in a match, lower case in an insert, '-' at a delete), and the posterior
// probability codes ('0'-'9', '*'; '.' at a delete).
struct Plan7AlignmentDisplay {
  std::string model, match, target, posterior;
};

// One domain (an envelope), coordinates 1-based and inclusive.
struct Plan7DomainHit {
  int env_from = 0, env_to = 0, ali_from = 0, ali_to = 0, hmm_from = 0, hmm_to = 0;
  float env_nats = 0;        // Forward score of the envelope alone (unihit, length model of the whole target)
  float null2_nats = 0;      // the domain's null2 correction before the omega prior (HMMER's domcorrection)
  float bits = 0;            // domain score as hmmsearch reports it
  float bias_bits = 0;       // the domain's bias column
  double lnP = 0;            // natural log of the domain's P-value (E-value = exp(lnP) * domZ)
  float mean_posterior = 0;  // mean posterior probability of the aligned residues (HMMER's oasc / alignment length)
  bool reported = false, included = false;  // set by the caller's thresholding
  // Only when the pipeline was asked for alignments (Plan7PipelineOptions::alignments); shared, as hits are copied.
  std::shared_ptr<const Plan7AlignmentDisplay> alignment;
};

struct Plan7SequenceHit {
  std::size_t target = 0;  // the caller's index; after_filters leaves it 0
  float pre_bits = 0;      // score before the null2 correction; the bias column is pre_bits - bits
  float bits = 0;
  double lnP = 0;  // natural log of the P-value (E-value = exp(lnP) * Z)
  float expected_domains = 0;
  int regions = 0, clustered = 0, overlaps = 0, envelopes = 0;
  std::vector<Plan7DomainHit> domains;
};

}  // namespace cudp::hmmer
