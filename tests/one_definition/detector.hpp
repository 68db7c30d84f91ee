#pragma once
// The checks of scorer_one_definition_test, shown to work: a class template with a member only nvcc compiles, as
// DatabaseScorer had, built in a C++ and a CUDA unit of one program. Both programs must fail to link
// (tests/one_definition/CMakeLists.txt: the tests one_definition_detects_*).
#include <cstddef>
#include <vector>

namespace detector {

template <class Policy>
class PerCompilerMembers {
 public:
  int host_part = 0;
#if defined(__CUDACC__)
  std::vector<int> device_parts;  // what the one-definition rule forbids
#endif
};

struct Policy {};
using Scorer = PerCompilerMembers<Policy>;

template <std::size_t Size, std::size_t Align>
struct Layout {};
using ScorerLayout = Layout<sizeof(Scorer), alignof(Scorer)>;
std::size_t cuda_unit_layout(ScorerLayout);
int use_in_cuda_unit(Scorer& scorer);

}  // namespace detector
