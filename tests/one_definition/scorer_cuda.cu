// The CUDA translation unit of scorer_one_definition_test: it builds and uses DatabaseScorer<Local>, compiled by
// nvcc, so that the program has the scorer's device backend (cudp/scorer.hpp).
#include "scorer_units.hpp"

namespace one_definition {

std::size_t cuda_unit_layout(ScorerLayout) { return sizeof(Scorer); }

int cuda_runtime_device_count() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess ? devices : 0;
}

std::unique_ptr<Scorer> build_in_cuda_unit(const cudp::engine::SequencesView& db, const cudp::SubstitutionTable& matrix,
                                           const Config& config) {
  return std::make_unique<Scorer>(db, matrix, matrix.size, config);
}

std::vector<std::vector<std::int32_t>> score_in_cuda_unit(Scorer& scorer, const cudp::engine::SequencesView& queries) {
  return scorer.score(queries);
}

}  // namespace one_definition
