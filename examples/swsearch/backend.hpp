#pragma once
// The boundary between the command-line program (plain C++) and the one translation unit that scores through
// cudp's front door, compiled by nvcc when the CUDA toolkit is present (and then able to use the GPU).
#include <cstdint>
#include <vector>

#include <cudp/engine/sequences.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/recurrences/gotoh.hpp>
#include <cudp/scorer.hpp>

namespace swsearch {

// Scores every query against every target: result[q][t] is the local alignment score.
using ScoreTable = std::vector<std::vector<std::int32_t>>;

// Creates the device's context (a few tenths of a second), so that it can be done while the inputs are read; false
// when there is no device or no CUDA backend in this build. On a node with several devices, the node's process
// `process_on_node` (0 when it runs alone) takes device process_on_node modulo their count, here and in score_all.
bool start_cuda(int process_on_node);
ScoreTable score_all(const cudp::engine::SequencesView& queries, const cudp::engine::SequencesView& db,
                     const cudp::io::SubstitutionMatrix& matrix, cudp::recurrences::GapCosts gaps, cudp::Backend backend,
                     int threads, cudp::ScoreStats& report, bool progress, int process_on_node);

}  // namespace swsearch
