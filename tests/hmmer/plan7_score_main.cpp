// Scores every sequence of a FASTA file against every model of an HMMER3 file with the reference Viterbi and
// Forward, the way hmmsearch's final stage does without null2 (--nonull2): one tab-separated line per pair
//   model  target  length  forward_bits  viterbi_bits  forward_pvalue  viterbi_pvalue  forward_bits_f32  viterbi_bits_f32
// The first scores come from the DP in double, the last two from the same DP in float: log-space float drifts by
// about 1e-3 bits over a few thousand residues (the C-state self-loop is added once per residue), which hmmsearch's
// rescaled probability-space Forward does not. The hmmsearch oracle script compares both with hmmsearch's tables.
#include <cstdio>
#include <exception>
#include <string>

#include "cudp/hmmer/plan7.hpp"
#include "cudp/io/fasta.hpp"
#include "cudp/hmmer/hmm_file.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODELS.hmm TARGETS.fa\n", argv[0]);
    return 2;
  }
  try {
    cudp::hmmer::HmmReader models(argv[1]);
    cudp::hmmer::HmmModel hmm;
    while (models.next(hmm)) {
      const cudp::hmmer::Plan7Alphabet& alphabet = cudp::hmmer::plan7_alphabet_of(hmm.alphabet);
      const cudp::hmmer::NullModel null_model = cudp::hmmer::default_null_model(alphabet);
      cudp::hmmer::Plan7Profile profile = cudp::hmmer::configure_profile(hmm, null_model);
      const cudp::io::SequenceSet targets = cudp::io::read_fasta(argv[2], alphabet.sequence_alphabet);
      for (std::size_t s = 0; s < targets.size(); ++s) {
        const auto exact = cudp::hmmer::score_target<double>(profile, targets.data(s), targets.length(s));
        const auto single = cudp::hmmer::score_target<float>(profile, targets.data(s), targets.length(s));
        std::printf("%s\t%s\t%u\t%.6f\t%.6f\t%.6g\t%.6g\t%.6f\t%.6f\n", hmm.name.c_str(), targets.names[s].c_str(),
                    targets.length(s), exact.forward_bits, exact.viterbi_bits, exact.forward_pvalue,
                    exact.viterbi_pvalue, single.forward_bits, single.viterbi_bits);
      }
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
