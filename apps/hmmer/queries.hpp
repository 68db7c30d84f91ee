#pragma once
// cudp-phmmer's queries: each protein sequence of <seqfile> made into a profile HMM as phmmer makes it. Shared by a
// one-shot run and the daemon (apps/hmmer/daemon.hpp), which gets the file's text from its client.
#include <cstdint>
#include <string>
#include <vector>

#include <cudp/hmmer/hmm_file.hpp>
#include <cudp/hmmer/plan7_alphabet.hpp>
#include <cudp/hmmer/single_sequence_model.hpp>
#include <cudp/io/error.hpp>
#include <cudp/io/fasta.hpp>

namespace phmmer {

// `text` is the query file's content (decompressed), `path` its name as given, for messages and the models' source.
// All models are built before the search: the same builder (and generator) for every query, as phmmer's, reseeded
// before each calibration.
inline std::vector<cudp::hmmer::HmmModel> build_query_models(const std::string& text, const std::string& path,
                                                             const cudp::hmmer::SingleSequenceOptions& options) {
  const cudp::hmmer::Plan7Alphabet& alphabet = cudp::hmmer::plan7_amino();
  const cudp::io::SequenceSet set =
      cudp::io::parse_fasta(text.data(), text.size(), path, alphabet.sequence_alphabet, cudp::io::FastaHeaders::easel);
  if (set.size() == 0) throw cudp::io::InputError(path + ": no query sequence found");
  cudp::hmmer::SingleSequenceBuilder builder(options);
  std::vector<cudp::hmmer::HmmModel> models;
  models.reserve(set.size());
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (set.length(i) == 0) throw cudp::io::InputError(path + ": query '" + set.names[i] + "' has no residues");
    cudp::hmmer::HmmModel m = builder.build(set.names[i], set.data(i), set.length(i));
    m.description = set.descriptions[i];
    m.source = path;
    models.push_back(std::move(m));
  }
  return models;
}

}  // namespace phmmer
