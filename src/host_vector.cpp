// The host vector kernels of the policies the library ships (engine/host_vector.hpp), compiled once per instruction
// set that Highway targets here (SSSE3, SSE4, AVX2, AVX-512 on x86; NEON on Arm) and chosen at run time.
//
// Everything this file includes outside the per-target headers is included first, compiled for the baseline
// instruction set only: templates such as std::vector and the target grouping are then instantiated once, the same in
// every target, and a baseline caller can never be linked to a copy built with AVX-512.
#include <cstdint>
#include <vector>

#include <cudp/engine/cascade.hpp>
#include <cudp/engine/host_vector.hpp>
#include <cudp/tiers/target_groups.hpp>
#include <cudp/recurrences/gotoh.hpp>
#include <cudp/recurrences/levenshtein.hpp>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/host_vector.cpp"  // found through the project root, an include directory here
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cudp/lanes/host_vector-inl.hpp>
#include <cudp/tiers/host_vector-inl.hpp>

HWY_BEFORE_NAMESPACE();
namespace cudp::engine::host_vector::HWY_NAMESPACE {

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

template <template <class> class Policy>
std::vector<std::uint32_t> cascade(const typename Policy<lanes::s32>::Params& params, const NarrowJob& job) {
  CascadeStats second;  // job.stats counts the 8-bit stage: what ran narrow, what was rescored, what never ran narrow
  CascadeStats& first = job.stats ? *job.stats : second;
  std::vector<std::uint32_t> in(job.order, job.order + job.count);
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  // A CPU with no vector unit Highway targets: everything goes to the 32-bit host tier.
  (void)params;
  first.wide_only += in.size();
  return in;
#else
  in = run_stage<Policy<vector_lanes::s8xn>>(params, job, in, first);
  return run_stage<Policy<vector_lanes::s16xn>>(params, job, in, second);
#endif
}

template <class L>
using LocalGotoh = recurrences::Gotoh<recurrences::AlignMode::Local, L>;
template <class L>
using GlobalGotoh = recurrences::Gotoh<recurrences::AlignMode::Global, L>;
template <class L>
using SemiGlobalGotoh = recurrences::Gotoh<recurrences::AlignMode::SemiGlobal, L>;

std::vector<std::uint32_t> GotohCascade(recurrences::AlignMode mode, const recurrences::GapCosts& gaps, const NarrowJob& job) {
  switch (mode) {
    case recurrences::AlignMode::Local: return cascade<LocalGotoh>(gaps, job);
    case recurrences::AlignMode::Global: return cascade<GlobalGotoh>(gaps, job);
    default: return cascade<SemiGlobalGotoh>(gaps, job);
  }
}

std::vector<std::uint32_t> LevenshteinCascade(const NarrowJob& job) {
  return cascade<recurrences::Levenshtein>(recurrences::LevenshteinParams{}, job);
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace cudp::engine::host_vector::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace cudp::engine::host_vector {

HWY_EXPORT(GotohCascade);
HWY_EXPORT(LevenshteinCascade);
HWY_EXPORT(TargetName);

std::vector<std::uint32_t> score_gotoh(recurrences::AlignMode mode, const recurrences::GapCosts& gaps, const NarrowJob& job) {
  return HWY_DYNAMIC_DISPATCH(GotohCascade)(mode, gaps, job);
}
std::vector<std::uint32_t> score_levenshtein(const NarrowJob& job) { return HWY_DYNAMIC_DISPATCH(LevenshteinCascade)(job); }
const char* instruction_set() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace cudp::engine::host_vector
#endif
