#pragma once
// The tier set of a tuning policy, as a type list. The length-sorted targets are cut into consecutive ranges, one per
// entry of the list, in its order. An entry knows the longest target it takes (a field of TierThresholds, or no bound
// for the last entry) and the kernel shapes (tiers/ types) that may run its range; every query picks one of them
// (the least padded time). The partition, the per-tier statistics and the launch all iterate over the list, so a new
// tier is a new entry, nothing else. Plain C++: the tier types are only named here, never instantiated on the device.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dispatch_options.hpp"

namespace cudp::engine {

template <class Tier>
constexpr WarpShape shape_of() {
  return {Tier::group_size, Tier::columns_per_thread};
}

// For the last entry of a list: every longer target.
inline constexpr std::nullptr_t kNoLengthBound = nullptr;

// One tier: the targets up to `thresholds.*MaxLength` residues (after those of the entries before it), run in one of
// `Shapes` (e.g. tiers::ThreadTier<16, 128>, or a menu of tiers::WarpTier shapes). Its name is its first shape's.
template <auto MaxLength, class... Shapes>
struct TierRange {
  static_assert(sizeof...(Shapes) > 0, "a tier runs in at least one shape");
  static_assert(std::is_same_v<decltype(MaxLength), std::nullptr_t> ||
                    std::is_same_v<decltype(MaxLength), int TierThresholds::*>,
                "the bound is a field of TierThresholds, or kNoLengthBound");
  using Menu = std::tuple<Shapes...>;
  static constexpr const char* name = std::tuple_element_t<0, Menu>::name;
  static constexpr int shape_count = static_cast<int>(sizeof...(Shapes));

  // The longest target this tier takes under `t`; -1: no bound.
  static long max_length(const TierThresholds& t) {
    if constexpr (std::is_same_v<decltype(MaxLength), std::nullptr_t>) {
      (void)t;
      return -1;
    } else {
      return t.*MaxLength;
    }
  }
  static std::vector<WarpShape> shapes() { return {shape_of<Shapes>()...}; }
  // Calls f(Shape{}) for the k-th shape.
  template <class F>
  static void with_shape(int k, F&& f) {
    int i = 0;
    ((k == i++ ? static_cast<void>(f(Shapes{})) : static_cast<void>(0)), ...);
  }
};

template <class... Entries>
struct TierList {
  static constexpr int size = static_cast<int>(sizeof...(Entries));
  // Calls f(Entry{}) for the k-th entry.
  template <class F>
  static void with_entry(int k, F&& f) {
    int i = 0;
    ((k == i++ ? static_cast<void>(f(Entries{})) : static_cast<void>(0)), ...);
  }
  // Calls f(Entry{}) for every entry, in order.
  template <class F>
  static void for_each(F&& f) {
    (static_cast<void>(f(Entries{})), ...);
  }
};

// What the dispatch keeps at run time of one entry of the selected policy's tier list.
struct TierPlan {
  const char* name = "";
  long max_length = -1;              // -1: no bound
  std::vector<WarpShape> shapes;     // the entry's shapes, in list order
  std::vector<double> padded_gcups;  // the policy's speed per padded cell of each shape
};

// The run-time plan of a policy's tier list under `thresholds`.
template <class Tuning>
std::vector<TierPlan> plan_tiers(const TierThresholds& thresholds) {
  std::vector<TierPlan> plans;
  Tuning::Tiers::for_each([&](auto entry) {
    using Entry = decltype(entry);
    TierPlan plan{Entry::name, Entry::max_length(thresholds), Entry::shapes(), {}};
    for (const WarpShape& s : plan.shapes) plan.padded_gcups.push_back(Tuning::padded_gcups(s));
    plans.push_back(std::move(plan));
  });
  return plans;
}

// Relative time of a query of length m in the k-th shape of a tier: its padded columns (the query rounded up to whole
// strips) over the shape's measured speed per padded cell.
inline double shape_cost(const TierPlan& plan, int k, int m) {
  const WarpShape& s = plan.shapes[static_cast<std::size_t>(k)];
  const int strips = (m + s.strip() - 1) / s.strip();
  return static_cast<double>(strips > 0 ? strips : 1) * s.strip() / plan.padded_gcups[static_cast<std::size_t>(k)];
}

// Index of `shape` in the tier's shapes, or -1.
inline int find_shape(const TierPlan& plan, const WarpShape& shape) {
  for (std::size_t k = 0; k < plan.shapes.size(); ++k)
    if (plan.shapes[k] == shape) return static_cast<int>(k);
  return -1;
}

// The shape a query of length m runs in on this tier: `forced` where the tier has it, otherwise the least cost (the
// first of equals).
inline int choose_shape(const TierPlan& plan, int m, const std::optional<WarpShape>& forced = std::nullopt) {
  if (forced) {
    const int k = find_shape(plan, *forced);
    if (k >= 0) return k;
  }
  int best = 0;
  for (int k = 1; k < static_cast<int>(plan.shapes.size()); ++k)
    if (shape_cost(plan, k, m) < shape_cost(plan, best, m)) best = k;
  return best;
}

// Throws unless some tier of the plan has `shape`.
inline void check_forced_shape(const std::vector<TierPlan>& plans, const WarpShape& shape, const char* lane) {
  std::string menus;
  for (const TierPlan& plan : plans) {
    if (find_shape(plan, shape) >= 0) return;
    menus += std::string(menus.empty() ? "" : "; ") + plan.name + ":";
    for (const WarpShape& s : plan.shapes) menus += " " + std::to_string(s.group) + "x" + std::to_string(s.columns);
  }
  throw std::invalid_argument("warp shape " + std::to_string(shape.group) + "x" + std::to_string(shape.columns) +
                              " is in no tier of the " + lane + " tuning (" + menus + ")");
}

// Profile columns for a query of length m: every strip of every shape of the plan lies inside the profile.
inline int profile_columns(const std::vector<TierPlan>& plans, int m) {
  int columns = 0;
  for (const TierPlan& plan : plans)
    for (const WarpShape& s : plan.shapes) columns = std::max(columns, std::max(1, (m + s.strip() - 1) / s.strip()) * s.strip());
  return columns;
}

}  // namespace cudp::engine
