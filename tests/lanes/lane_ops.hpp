#pragma once
// Every lane operation by name, so the host test and the device test sweep the same list.
#include <cstdint>

#include <cudp/config.hpp>

namespace cudp::test {

constexpr int kLaneOps = 13;
constexpr const char* kLaneOpNames[kLaneOps] = {"add", "sub", "adds", "subs", "max", "min", "max3", "min3", "max3_relu",
                                                "add_max", "add_min", "eq_mask", "gt_mask"};

template <class L>
CUDP_HD typename L::word apply_lane_op(int op, typename L::word a, typename L::word b, typename L::word c) {
  switch (op) {
    case 0: return L::add(a, b);
    case 1: return L::sub(a, b);
    case 2: return L::adds(a, b);
    case 3: return L::subs(a, b);
    case 4: return L::max(a, b);
    case 5: return L::min(a, b);
    case 6: return L::max3(a, b, c);
    case 7: return L::min3(a, b, c);
    case 8: return L::max3_relu(a, b, c);
    case 9: return L::add_max(a, b, c);
    case 10: return L::add_min(a, b, c);
    case 11: return L::eq_mask(a, b);
    default: return L::gt_mask(a, b);
  }
}

}  // namespace cudp::test
