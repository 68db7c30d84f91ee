#pragma once
// The boundary between cudp-align (plain C++) and the one translation unit that may run alignments on the GPU,
// compiled by nvcc when the CUDA toolkit is present (device.cpp).
#include <functional>
#include <vector>

#include <cudp/align/alignment.hpp>
#include <cudp/align/linear_space.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/recurrences/gotoh.hpp>

namespace align_app {

// Whether this build has the GPU path and a device is present.
bool gpu_available();

// Starts creating the CUDA context in the background (about 0.1 s on an H100), so that it overlaps reading the
// inputs and laying out the batch; the GPU paths below wait for it and use its device: the node's GPU
// `process_on_node` modulo their count, for process `process_on_node` of a node under mpirun (gpu_choice.hpp).
// Does nothing without the GPU path.
void start_gpu(int process_on_node = 0, int processes = 1);

// Every pair at once (one batch: the pairs' boxes share each level's passes): the ends of local and semi-global
// alignments, the levels and the leaves on the GPU; `threads` host threads for the rest. Throws when there is no GPU
// path.
std::vector<cudp::align::Alignment> align_batch_on_gpu(cudp::recurrences::AlignMode mode,
                                                       const std::vector<cudp::align::SequenceView>& queries,
                                                       const std::vector<cudp::align::SequenceView>& targets,
                                                       const cudp::io::SubstitutionMatrix& matrix,
                                                       cudp::recurrences::GapCosts gaps, int threads,
                                                       std::function<void(double)> progress);

// The best score of every pair in `mode`, without alignments: global from cudp::align::global_scores (two half
// passes a pair, every cell computed once, the crossings found on the GPU), local and semi-global from
// cudp::align::located_scores (one best-cell pass a pair). Throws when there is no GPU path.
std::vector<long> scores_on_gpu(cudp::recurrences::AlignMode mode, const std::vector<cudp::align::SequenceView>& queries,
                                const std::vector<cudp::align::SequenceView>& targets,
                                const cudp::io::SubstitutionMatrix& matrix, cudp::recurrences::GapCosts gaps,
                                int threads);

}  // namespace align_app
