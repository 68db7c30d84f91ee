#pragma once
// The profile HMM phmmer makes of each protein query (HMMER 3.3.2's p7_SingleBuilder: p7_Seqmodel,
// p7_hmm_SetComposition, p7_hmm_SetConsensus, p7_Calibrate), which hmmbuild --singlemx makes too.
//
// One match node per query residue. Node k emits P(b | query residue k) from a substitution matrix read as log
// odds against the background (substitution_probabilities.hpp); inserts emit the background; every node has the
// same gap transitions, from a gap-open probability popen and a gap-extend pextend:
//   M->M 1 - 2 popen, M->I popen, M->D popen, I->M 1 - pextend, I->I pextend, D->M 1 - pextend, D->D pextend,
// except that the last node has no D to go to (M->M 1 - popen, M->D 0, D->M 1, D->D 0). The builder then sets the
// mean composition, a consensus line (the query itself, upper case where its own residue has probability >= 0.5)
// and the E-value parameters (model_calibration.hpp). Probabilities are stored in float from the double
// computations, as HMMER stores them, so a search with this model is a search with phmmer's.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <stdexcept>
#include <string>
#include <vector>

#include "easel_score_matrices.hpp"
#include "hmm_file.hpp"
#include "model_calibration.hpp"
#include "null_model.hpp"
#include "plan7_alphabet.hpp"
#include "plan7_bias_filter.hpp"
#include "substitution_probabilities.hpp"

namespace cudp::hmmer {

// phmmer's score system and calibration options (--mx, --popen, --pextend, --EmL ..., --seed); the defaults are
// phmmer's and hmmbuild --singlemx's for protein.
struct SingleSequenceOptions {
  std::string matrix = "BLOSUM62";  // a built-in matrix of Easel's (easel_score_matrices.hpp)
  double popen = 0.02;
  double pextend = 0.4;
  CalibrationOptions calibration;
  int threads = 1;  // workers scoring the calibration's random sequences (0: all cores); the models do not change
  CalibrationFilters filters;  // the calibration's MSV and Viterbi filters, where not its own
};

// HMMER's p7_hmm_SetCtime text: ctime() without its newline.
inline std::string hmm_creation_time() {
  const std::time_t now = std::time(nullptr);
  char text[64] = {};
  std::tm local{};
  localtime_r(&now, &local);
  std::strftime(text, sizeof text, "%a %b %e %H:%M:%S %Y", &local);
  return text;
}

namespace detail {

// p7_hmm_SetConsensus with the query as consensus. For a degenerate query residue HMMER reads mat[k][x] with x past
// the K canonical columns, which lands in node k+1's row (column x - K); at the last node it reads past the
// matrix, which is taken as below threshold (lower case) here.
inline std::string single_sequence_consensus(const HmmModel& hmm, const std::uint8_t* codes,
                                             const Plan7Alphabet& alphabet) {
  const int M = hmm.length;
  const int K = alphabet.K;
  std::string consensus = " ";
  for (int k = 1; k <= M; ++k) {
    const int x = codes[k - 1];
    float p = 0.0f;
    if (x < K) {
      p = hmm.match_probability(k, x);
    } else if (k < M) {
      p = hmm.match_probability(k + 1, x - K);
    }
    const auto symbol = static_cast<unsigned char>(alphabet.symbols[x]);
    consensus += static_cast<char>(p >= 0.5f ? std::toupper(symbol) : std::tolower(symbol));
  }
  return consensus;
}

}  // namespace detail

// The uncalibrated model (no STATS): p7_Seqmodel, then the composition and consensus. `codes` are plan7_amino()
// codes, L of them; the gap, '*' and '~' codes are refused (they have no emission distribution).
inline HmmModel single_sequence_model(const std::string& name, const std::uint8_t* codes, std::size_t L,
                                      const SubstitutionProbabilities& probabilities, const NullModel& null_model,
                                      double popen, double pextend) {
  const Plan7Alphabet& alphabet = plan7_amino();
  if (null_model.alphabet != &alphabet)
    throw std::invalid_argument("single_sequence_model: the null model is not amino");
  if (L == 0) throw std::invalid_argument("single_sequence_model: query '" + name + "' is empty");
  for (std::size_t i = 0; i < L; ++i) {
    if (!alphabet.is_residue(codes[i])) {
      throw std::invalid_argument("single_sequence_model: query '" + name + "' has '" +
                                  std::string(1, alphabet.symbols[codes[i]]) + "' at position " +
                                  std::to_string(i + 1) + ", which is not a residue");
    }
  }
  const int K = alphabet.K;
  const int M = static_cast<int>(L);
  const auto nodes = static_cast<std::size_t>(M) + 1;
  const auto KK = static_cast<std::size_t>(K);
  HmmModel hmm;
  hmm.format = HmmFormat::v3f;
  hmm.name = name;
  hmm.alphabet = HmmAlphabet::Amino;
  hmm.length = M;
  hmm.sequence_count = 1;
  hmm.effective_sequence_count = 1.0;
  hmm.command_log = "[HMM created from a query sequence]";
  hmm.match.assign(nodes * KK, 0.0f);
  hmm.insert.assign(nodes * KK, 0.0f);
  hmm.transitions.assign(nodes * kTransitionCount, 0.0f);
  for (int k = 0; k <= M; ++k) {
    const auto ku = static_cast<std::size_t>(k);
    if (k > 0) {
      const double* row = probabilities.conditional_row(codes[k - 1]);
      for (std::size_t x = 0; x < KK; ++x) hmm.match[ku * KK + x] = static_cast<float>(row[x]);
    }
    for (std::size_t x = 0; x < KK; ++x) hmm.insert[ku * KK + x] = null_model.frequencies[x];
    float* t = &hmm.transitions[ku * kTransitionCount];
    t[kMM] = static_cast<float>(1.0 - 2 * popen);
    t[kMI] = static_cast<float>(popen);
    t[kMD] = static_cast<float>(popen);
    t[kIM] = static_cast<float>(1.0 - pextend);
    t[kII] = static_cast<float>(pextend);
    t[kDM] = static_cast<float>(1.0 - pextend);
    t[kDD] = static_cast<float>(pextend);
  }
  float* last = &hmm.transitions[static_cast<std::size_t>(M) * kTransitionCount];
  last[kMM] = static_cast<float>(1.0 - popen);
  last[kMD] = 0.0f;
  last[kDM] = 1.0f;
  last[kDD] = 0.0f;
  hmm.composition = model_composition(hmm);
  hmm.consensus = detail::single_sequence_consensus(hmm, codes, alphabet);
  return hmm;
}

// phmmer's builder: one score system, one null model and one generator for all queries. Not thread-safe (the
// generator runs on from query to query when the seed is 0); give each thread its own.
class SingleSequenceBuilder {
 public:
  explicit SingleSequenceBuilder(const SingleSequenceOptions& options = {})
      : options_(options), null_model_(default_null_model(plan7_amino())), random_(options.calibration.seed) {
    const EaselProteinMatrix* matrix = find_easel_protein_matrix(options.matrix);
    if (matrix == nullptr) {
      throw std::invalid_argument("no matrix named " + options.matrix + " is available as a built-in");
    }
    if (!(options.popen >= 0.0 && options.popen < 0.5)) throw std::invalid_argument("popen must be in [0, 0.5)");
    if (!(options.pextend >= 0.0 && options.pextend < 1.0)) throw std::invalid_argument("pextend must be in [0, 1)");
    // HMMER converts its float background to double for the matrix.
    const std::vector<double> background(null_model_.frequencies.begin(), null_model_.frequencies.end());
    probabilities_ = substitution_probabilities(*matrix, background);
  }

  // The calibrated model of one query, named `name`, dated now.
  HmmModel build(const std::string& name, const std::uint8_t* codes, std::size_t L) {
    HmmModel hmm = single_sequence_model(name, codes, L, probabilities_, null_model_, options_.popen, options_.pextend);
    hmm.date = hmm_creation_time();
    hmm.stats = calibrate(hmm, null_model_, options_.calibration, next_sequences(), options_.threads,
                          options_.filters);
    return hmm;
  }

  const SubstitutionProbabilities& probabilities() const { return probabilities_; }
  const NullModel& null_model() const { return null_model_; }
  const SingleSequenceOptions& options() const { return options_; }

 private:
  SingleSequenceOptions options_;
  NullModel null_model_;
  SubstitutionProbabilities probabilities_;
  CalibrationRandom random_;
  CalibrationSequences sequences_;

  // The next model's random sequences: drawn once when every model reseeds the generator (they are then the same
  // sequences for every model), drawn anew for each model otherwise.
  const CalibrationSequences& next_sequences() {
    if (!random_.reseeds() || sequences_.empty())
      sequences_ = draw_calibration_sequences(random_.for_next_model(), null_model_, options_.calibration);
    return sequences_;
  }
};

}  // namespace cudp::hmmer
