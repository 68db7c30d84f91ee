// The CUDA unit of the detector programs (detector.hpp).
#include "detector.hpp"

namespace detector {
std::size_t cuda_unit_layout(ScorerLayout) { return sizeof(Scorer); }
int use_in_cuda_unit(Scorer& scorer) { return scorer.host_part + static_cast<int>(scorer.device_parts.size()); }
}  // namespace detector
