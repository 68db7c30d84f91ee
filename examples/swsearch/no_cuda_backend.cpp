// Built when the CUDA toolkit is absent: the program still runs, on the host backend.
#include <stdexcept>

#include "backend.hpp"

namespace swsearch {

bool cuda_available() { return false; }
bool start_cuda() { return false; }

ScoreTable score_with_cuda(const cudp::engine::SequencesView&, const cudp::engine::SequencesView&,
                           const cudp::io::SubstitutionMatrix&, cudp::recurrences::GapCosts, BackendReport&, bool) {
  throw std::runtime_error("this build of cudp-swsearch has no CUDA backend; use --backend host");
}

}  // namespace swsearch
