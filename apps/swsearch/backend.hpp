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

// Creates the contexts of the GPUs this process searches with (cudp::apps::choose_gpus of --gpus), side by side,
// so that it can be done while the inputs are read (a few tenths of a second); their CUDA ids, none when there is
// no device or no CUDA backend in this build.
std::vector<int> start_cuda(int gpus, int process_on_node, int processes);
// The database is split across `devices` with the device backend.
ScoreTable score_all(const cudp::engine::SequencesView& queries, const cudp::engine::SequencesView& db,
                     const cudp::io::SubstitutionMatrix& matrix, cudp::recurrences::GapCosts gaps, cudp::Backend backend,
                     int threads, cudp::ScoreStats& report, bool progress, const std::vector<int>& devices);

}  // namespace swsearch
