// A whole program around the README's search(): every query of a FASTA file against a database (FASTA, plain or
// gzip, or a cudp-makedb file), each query's best target and its Smith-Waterman score (BLOSUM62, a gap of k costs
// 11 + k). It runs on the GPU where it is compiled by nvcc and a device is present, else on the CPU.
//   search_database QUERIES.fa DATABASE.fa
#include <cstdio>
#include <exception>

#include <cudp/bio/alphabet.hpp>
#include <cudp/io/database_file.hpp>

#include "search.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s QUERIES.fa DATABASE.fa\n", argv[0]);
    return 2;
  }
  try {
    const cudp::io::SubstitutionMatrix matrix = cudp::io::load_matrix("BLOSUM62", cudp::bio::protein());
    const cudp::io::SequenceSet queries = cudp::io::load_sequences(argv[1], cudp::bio::protein());
    const cudp::io::SequenceSet db = cudp::io::load_sequences(argv[2], cudp::bio::protein());
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const std::vector<std::int32_t> scores =
          search(matrix, queries.data(q), static_cast<int>(queries.length(q)), cudp::engine::view_of(db));
      std::size_t best = 0;
      for (std::size_t t = 1; t < scores.size(); ++t)
        if (scores[t] > scores[best]) best = t;
      if (!scores.empty()) std::printf("%s\t%s\t%d\n", queries.names[q].c_str(), db.names[best].c_str(), scores[best]);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
}
