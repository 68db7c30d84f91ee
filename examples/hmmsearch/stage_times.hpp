#pragma once
// cudp-hmmsearch's stages (CUDP_STAGE_TIMES=1): the examples' shared timer.
#include "../common/stage_times.hpp"

namespace hmmsearch {
using cudp::examples::StageTimes;
}  // namespace hmmsearch
