#pragma once
// cudp-hmmsearch's stages (CUDP_STAGE_TIMES=1): the examples' shared timer.
#include "kit/stage_times.hpp"

namespace hmmsearch {
using cudp::apps::StageTimes;
}  // namespace hmmsearch
