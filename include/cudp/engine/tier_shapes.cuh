#pragma once
// Kernel shapes per lane type (tuning data, kept apart from the algorithms): columns per thread, group and block
// sizes of each tier, and the menu of warp-tier shapes from which every query picks the cheapest for its length.
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "../lanes/h16x2.hpp"
#include "../lanes/s16x2.hpp"
#include "../lanes/s32.hpp"
#include "../tiers/block.cuh"
#include "../tiers/thread.cuh"
#include "../tiers/warp.cuh"

namespace cudp::engine {

template <class... Tiers>
using TierMenu = std::tuple<Tiers...>;

template <class Lane>
struct TierShapes {
  using Thread = tiers::ThreadTier<16, 128>;
  using Warps = TierMenu<tiers::WarpTier<32, 16, 128>>;
  using Block = tiers::BlockTier<8, 256>;
};

// The default lane: strips from 96 to 512 columns, several of them per query where that pads less. Per padded cell
// the shapes run within 10% of each other (3990-4400 GCUPS), so the menu is the 7 that give the best predicted time
// over the benchmark ladder (bench/RESULTS.md, 2026-11-21, H100 with longest tasks first).
template <>
struct TierShapes<lanes::s16x2> {
  using Thread = tiers::ThreadTier<16, 128>;
  using Warps = TierMenu<tiers::WarpTier<4, 24, 128>, tiers::WarpTier<4, 40, 128>, tiers::WarpTier<4, 48, 128>,
                         tiers::WarpTier<8, 32, 128>, tiers::WarpTier<8, 40, 128>, tiers::WarpTier<8, 48, 128>,
                         tiers::WarpTier<8, 64, 128>>;
  using Block = tiers::BlockTier<8, 256>;
};

// Half lanes pack like s16x2 (two 16-bit lanes, the same profile layout): the same shapes, so that the two compare
// kernel for kernel.
template <>
struct TierShapes<lanes::h16x2> : TierShapes<lanes::s16x2> {};

template <>
struct TierShapes<lanes::s32> {
  using Thread = tiers::ThreadTier<8, 128>;
  using Warps = TierMenu<tiers::WarpTier<32, 8, 128>>;
  using Block = tiers::BlockTier<4, 256>;
};

struct WarpShape {
  int group = 0, columns = 0;
  int strip() const { return group * columns; }
};

template <class Menu, std::size_t... I>
std::vector<WarpShape> warp_shapes_of(std::index_sequence<I...>) {
  return {WarpShape{std::tuple_element_t<I, Menu>::group_size, std::tuple_element_t<I, Menu>::columns_per_thread}...};
}
template <class Menu>
std::vector<WarpShape> warp_shapes() {
  return warp_shapes_of<Menu>(std::make_index_sequence<std::tuple_size_v<Menu>>{});
}

// Cells per second of a warp shape counted over its padded strips (the query rounded up to whole strips), which
// bench/ found independent of the query length: sm_90, s16x2 local Gotoh, NVIDIA H100, the 20-query ladder forced
// into each shape, blocks taking the longest tasks first (bench/RESULTS.md, 2026-11-21, the H100 shape sweep).
inline double padded_gcups(const WarpShape& s) {
  struct Entry { int group, columns; double gcups; };
  static constexpr Entry measured[] = {
      {4, 24, 3986},  {4, 32, 4248},  {4, 40, 4019},  {4, 48, 4292},  {4, 56, 3858},  {8, 24, 4031},
      {8, 32, 4288},  {8, 40, 4171},  {8, 48, 4396},  {8, 56, 4133},  {8, 64, 4337},  {16, 24, 3959},
      {16, 32, 4208}, {16, 40, 4089}, {16, 48, 4310}, {16, 56, 4043}, {16, 64, 4238}, {32, 32, 4023}};
  for (const Entry& e : measured)
    if (e.group == s.group && e.columns == s.columns) return e.gcups;
  return 3900;  // an unmeasured shape: about the slowest measured
}

// Relative time of a query of length m on a warp shape: its padded columns over the shape's padded-cell speed.
inline double warp_shape_cost(int m, const WarpShape& s) {
  const int strips = (m + s.strip() - 1) / s.strip();
  return static_cast<double>(strips > 0 ? strips : 1) * s.strip() / padded_gcups(s);
}

// Index into `menu` of the shape for a query of length m. CUDP_WARP_SHAPE="G,R" forces one, for tuning runs.
inline int choose_warp_shape(int m, const std::vector<WarpShape>& menu) {
  if (const char* env = std::getenv("CUDP_WARP_SHAPE")) {
    std::string s(env);
    auto comma = s.find(',');
    int g = std::atoi(s.substr(0, comma).c_str()), r = comma == std::string::npos ? 0 : std::atoi(s.substr(comma + 1).c_str());
    for (std::size_t k = 0; k < menu.size(); ++k)
      if (menu[k].group == g && menu[k].columns == r) return static_cast<int>(k);
    throw std::invalid_argument("CUDP_WARP_SHAPE=" + s + " is not in this lane's warp-tier menu");
  }
  int best = 0;
  for (std::size_t k = 1; k < menu.size(); ++k)
    if (warp_shape_cost(m, menu[k]) < warp_shape_cost(m, menu[best])) best = static_cast<int>(k);
  return best;
}

// Calls f(Tier{}) for the menu's k-th tier.
template <class Menu, class F, std::size_t I = 0>
void with_warp_shape(int k, F&& f) {
  if constexpr (I < std::tuple_size_v<Menu>) {
    if (k == static_cast<int>(I)) return f(std::tuple_element_t<I, Menu>{});
    with_warp_shape<Menu, F, I + 1>(k, std::forward<F>(f));
  }
}

}  // namespace cudp::engine
