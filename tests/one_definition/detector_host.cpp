// The C++ unit of the detector programs (detector.hpp): must not link.
#include "detector.hpp"

int main() {
  detector::Scorer scorer;
  return detector::use_in_cuda_unit(scorer) + static_cast<int>(detector::cuda_unit_layout(detector::ScorerLayout{}));
}
