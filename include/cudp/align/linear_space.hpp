#pragma once
// Optimal Gotoh alignments in O(m + n) memory (Myers-Miller). PLACEHOLDER while the recursion lands: full traceback.
#include <cstdint>

#include "../recurrences/gotoh.hpp"
#include "alignment.hpp"
#include "full_traceback.hpp"

namespace cudp::align {

struct LinearSpaceOptions {
  long leaf_cells = 1L << 16;  // boxes of at most this many cells are solved whole, by full traceback
  int threads = 0;             // host threads for the passes of one level (0: all cores)
};

template <class Matrix>
Alignment align_linear_space(recurrences::AlignMode mode, const std::uint8_t* query, int m, const std::uint8_t* target,
                             int n, const Matrix& matrix, recurrences::GapCosts gaps,
                             const LinearSpaceOptions& = {}) {
  return align_full(mode, query, m, target, n, matrix, gaps);
}

}  // namespace cudp::align
