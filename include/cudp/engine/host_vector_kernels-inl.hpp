// The host vector kernels of the policies a program names, compiled once per instruction set that Highway targets
// here (SSSE3, SSE4, AVX2, AVX-512 on x86; NEON on Arm), chosen at run time and registered for the front door and
// engine::host_vector::score. One translation unit of the program (and only that: it is Highway's per-target
// translation unit) names its policy templates and includes this header:
//
//   // my_kernels.cpp
//   #include "my_recurrence.hpp"                     // template <class L> struct mine::Edit { ... };
//   #define CUDP_HOST_VECTOR_POLICIES mine::Edit     // a comma-separated list of policy templates
//   #include <cudp/engine/host_vector_kernels-inl.hpp>
//
// and links cudp::host_vector (in CMake: target_link_libraries(... cudp::host_vector), which brings hwy::hwy). The
// unit must be linked into the program itself (a source of the executable or of a shared library, or an OBJECT
// library): a static library's object that nothing refers to is left out by the linker, and its kernels with it.
// The kernels register while the program starts (static initialisation): a scorer built by another unit's static
// initialiser may not find them yet. Whether a policy got them: engine::host_vector::has_kernels<Policy>(),
// DatabaseScorer::uses_vector_lanes().
//
// Everything outside the per-target region is included first, compiled for the baseline instruction set only:
// templates such as std::vector and the policy's own member functions are then instantiated once, the same for every
// target, and a baseline caller can never be linked to a copy built with AVX-512. The policy is built, and its
// functions called, only inside the target region (make_policy and the tier's per-group function are `flatten`), so
// its code is compiled into each instruction set's kernels. The kernels live in an unnamed namespace: two units
// that name the same policy do not clash (the first to register is used).
//
// This file is re-included by Highway once per instruction set (HWY_TARGET_INCLUDE names it), so it has no include
// guard of its own; a second #include in the same unit after the first has finished is an error.
#if defined(CUDP_ENGINE_HOST_VECTOR_KERNELS_DONE)
#error "cudp/engine/host_vector_kernels-inl.hpp compiles kernels once per translation unit: name every policy in one CUDP_HOST_VECTOR_POLICIES"
#endif

#include <cstddef>
#include <cstdint>
#include <typeinfo>
#include <utility>
#include <vector>

#include "../lanes/s32.hpp"
#include "../recurrences/shape.hpp"
#include "../tiers/target_groups.hpp"
#include "cascade.hpp"
#include "host_vector.hpp"

#if !defined(CUDP_HAS_HOST_VECTOR)
#error "cudp/engine/host_vector_kernels-inl.hpp needs cudp::host_vector (Google Highway): link it, which defines CUDP_HAS_HOST_VECTOR"
#endif

// Without a list (this header compiled on its own) there is nothing to compile.
#if defined(CUDP_HOST_VECTOR_POLICIES)

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cudp/engine/host_vector_kernels-inl.hpp"  // found through the include path
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include "../lanes/host_vector-inl.hpp"
#include "../tiers/host_vector-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace cudp::engine::host_vector::registered {
namespace {
namespace HWY_NAMESPACE {

namespace vector_lanes = cudp::lanes::HWY_NAMESPACE;
namespace vector_tiers = cudp::tiers::HWY_NAMESPACE;

// The policy object, built here with its lane constants: `flatten` keeps the lane operations its constructor calls
// inside this instruction set's code (a call to one from code built for the baseline would not be inlined).
template <class P>
__attribute__((flatten)) P make_policy(const typename P::Params& params, const recurrences::ProblemShape& shape) {
  return P(params, shape);
}

// Targets of `in` that P's lane holds run in it; returned are those it cannot hold (planned or overflowed),
// longest first, for the next lane.
template <class P>
std::vector<std::uint32_t> run_stage(const typename P::Params& params, const NarrowJob& job,
                                     const std::vector<std::uint32_t>& in, CascadeStats& stats) {
  LanePlan plan;
  for (std::uint32_t t : in) (P::fits(params, job.shape, job.db.length(t)) ? plan.narrow : plan.wide).push_back(t);
  const P p = make_policy<P>(params, job.shape);
  if (!plan.narrow.empty()) {
    const auto groups = tiers::TargetGroups::of(job.db.offsets, plan.narrow.data(), plan.narrow.size(), P::Lane::width);
    vector_tiers::HostVectorTier<P>::run(p, groups.view(job.db.residues, job.db.offsets), job.classes,
                                         job.shape.query_length, job.scores, job.threads);
  }
  std::vector<std::uint32_t> next = finish_cascade(p, std::move(plan), job.scores, stats);
  sort_longest_first(job.db, next);
  return next;
}

// The whole vector cascade of one policy: 8-bit lanes, then 16-bit ones.
template <template <class> class Policy>
std::vector<std::uint32_t> cascade(const typename Policy<lanes::s32>::Params& params, const NarrowJob& job) {
  CascadeStats unused;
  CascadeStats& first = job.stats ? *job.stats : unused;
  std::vector<std::uint32_t> in(job.order, job.order + job.count);
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  // A CPU with no vector unit Highway targets: everything goes to the 32-bit host tier.
  (void)params;
  first.wide_only += in.size();
  return in;
#else
  in = run_stage<Policy<vector_lanes::s8xn>>(params, job, in, first);
  CascadeStats second;
  in = run_stage<Policy<vector_lanes::s16xn>>(params, job, in, second);
  first.second_step.narrow_targets += second.narrow_targets;
  first.second_step.rescored_overflow += second.rescored_overflow;
  first.second_step.wide_only += second.wide_only;
  return in;
#endif
}

// The cascade of the policy at `index` in the list; `params` points to its Params.
template <template <class> class First, template <class> class... Rest>
std::vector<std::uint32_t> cascade_of(std::size_t index, const void* params, const NarrowJob& job) {
  if (index == 0) return cascade<First>(*static_cast<const typename First<lanes::s32>::Params*>(params), job);
  if constexpr (sizeof...(Rest) > 0) return cascade_of<Rest...>(index - 1, params, job);
  return {};
}

// The exported functions: one table of instruction sets each (Highway 1.0's HWY_EXPORT takes no templates).
std::vector<std::uint32_t> CudpNarrow(std::size_t index, const void* params, const NarrowJob& job) {
  return cascade_of<CUDP_HOST_VECTOR_POLICIES>(index, params, job);
}

TargetInfo CudpTarget() {
  return {hwy::TargetName(HWY_TARGET), !(HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128)};
}

}  // namespace HWY_NAMESPACE
}  // namespace
}  // namespace cudp::engine::host_vector::registered
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace cudp::engine::host_vector::registered {
namespace {

HWY_EXPORT(CudpNarrow);
HWY_EXPORT(CudpTarget);

template <template <class> class... Policies>
struct PolicyList {
  static constexpr std::size_t size = sizeof...(Policies);
};

template <std::size_t Index>
std::vector<std::uint32_t> narrow_at(const void* params, const NarrowJob& job) {
  return HWY_DYNAMIC_DISPATCH(CudpNarrow)(Index, params, job);
}

// The instruction set this unit's kernels run in now.
TargetInfo this_unit_target() { return HWY_DYNAMIC_DISPATCH(CudpTarget)(); }

template <template <class> class... Policies, std::size_t... Index>
bool register_all(std::index_sequence<Index...>) {
  (register_kernels(typeid(Policies<lanes::s32>), Kernels{&narrow_at<Index>, &this_unit_target}), ...);
  return true;
}

[[maybe_unused]] const bool registered_at_start = register_all<CUDP_HOST_VECTOR_POLICIES>(
    std::make_index_sequence<PolicyList<CUDP_HOST_VECTOR_POLICIES>::size>());

}  // namespace
}  // namespace cudp::engine::host_vector::registered
#define CUDP_ENGINE_HOST_VECTOR_KERNELS_DONE
#endif  // HWY_ONCE

#endif  // CUDP_HOST_VECTOR_POLICIES
