// Scores two sequences with the host backend of an installed cudp, and reads Easel's amino alphabet from the HMMER
// module (cudp::hmmer); with cudp::host_vector, scores it again in CPU vectors, and scores through the front door with
// a policy of its own whose vector kernels edit_kernels.cpp compiles. Exits non-zero on a wrong score or alphabet,
// or when that policy does not run in vector lanes where the library's do.
#include <cstdio>
#include <vector>

#include <cudp/bio/alphabet.hpp>
#include <cudp/engine/host_scorer.hpp>
#include <cudp/engine/host_vector.hpp>
#include <cudp/hmmer/plan7_alphabet.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/recurrences/gotoh.hpp>
#include <cudp/scorer.hpp>

#include "edit.hpp"

template <class L> using LocalSW = cudp::recurrences::Gotoh<cudp::recurrences::AlignMode::Local, L>;

int main() {
  const auto& protein = cudp::bio::protein();
  auto matrix = cudp::io::load_matrix("BLOSUM62", protein);
  std::vector<std::uint8_t> query, target;
  for (char c : std::string("HEAGAWGHEE")) query.push_back(static_cast<std::uint8_t>(protein.encode(c)));
  target = query;
  std::vector<std::uint64_t> offsets{0, target.size()};
  cudp::engine::SequencesView db{target.data(), offsets.data(), 1};
  auto scores = cudp::engine::score_on_host<LocalSW>({11, 1}, matrix, matrix.size, query.data(), 10, db);
  // Self-alignment: the sum of the diagonal BLOSUM62 entries H E A G A W G H E E.
  int expect = 8 + 5 + 4 + 6 + 4 + 11 + 6 + 8 + 5 + 5;
  std::printf("score %d, expected %d\n", scores[0], expect);
#if defined(CUDP_HAS_HOST_VECTOR)
  cudp::engine::CascadeStats stats;
  auto vector_scores = cudp::engine::host_vector::score<LocalSW>({11, 1}, matrix, matrix.size, query.data(), 10, db, 1, &stats);
  std::printf("in %s vectors: score %d, %llu target(s) in 8 bits\n", cudp::engine::host_vector::instruction_set(),
              vector_scores[0], static_cast<unsigned long long>(stats.narrow_targets));
  if (vector_scores[0] != expect) return 1;
  cudp::ScoreConfig<cudp::recurrences::LevenshteinParams> config;
  config.backend = cudp::Backend::Host;
  config.threads = 1;
  cudp::DatabaseScorer<consumer::Edit> edit(db, [](int, int) { return 0; }, matrix.size, config);
  const auto distances = edit.score(query.data(), 10);
  std::printf("own policy: distance %d, expected 0, %s\n", distances[0], edit.stats().where.c_str());
  if (distances[0] != 0 || edit.uses_vector_lanes() != cudp::engine::host_vector::has_kernels<LocalSW>()) return 1;
#endif
  const auto& amino = cudp::hmmer::plan7_amino();
  std::printf("HMMER amino alphabet: %d residues of %d codes, expected 20 of 29\n", amino.K, amino.Kp);
  return scores[0] == expect && amino.K == 20 && amino.Kp == 29 ? 0 : 1;
}
