#pragma once
// The README's first use of the library: one query scored against a database through the front door
// (cudp/scorer.hpp). search_database.cpp makes a program of it; tests/docs/readme_test.cpp checks its scores. The
// region between the markers is shown verbatim in README.md (tests/docs/snippets_match.py checks it).
#include <cstdint>
#include <vector>

#include <cudp/engine/sequences.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/recurrences/gotoh.hpp>
#include <cudp/scorer.hpp>

// [snippet:readme-host]
template <class L> using LocalSW = cudp::recurrences::Gotoh<cudp::recurrences::AlignMode::Local, L>;

// The best local alignment score of the query (m residue codes) with each target of db; a gap of k costs 11 + k.
// Through the front door: on the GPU where this file is compiled by nvcc and a device is present, else the CPU.
std::vector<std::int32_t> search(const cudp::io::SubstitutionMatrix& matrix, const std::uint8_t* query, int m,
                                 const cudp::engine::SequencesView& db) {
  cudp::ScoreConfig<cudp::recurrences::GapCosts> config;
  config.params = {11, 1};
  cudp::DatabaseScorer<LocalSW> scorer(db, matrix, matrix.size, config);
  return scorer.score(query, m);
}
// [/snippet]
