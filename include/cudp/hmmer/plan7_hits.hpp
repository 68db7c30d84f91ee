#pragma once
// What the Plan7 pipeline reports for a target that passes (hmmer/plan7_pipeline.hpp): the sequence's scores and its
// domains, in the form hmmsearch's tables and text output print them.
#include <cstddef>
#include <vector>

namespace cudp::hmmer {

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
