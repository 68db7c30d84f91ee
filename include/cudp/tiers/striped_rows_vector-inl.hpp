// The striped-rows host tier compiled for one vector instruction set (Highway's per-target loop, as
// lanes/host_vector-inl.hpp): StripedHostRun's per-target work in functions of that target, marked `flatten`, so
// that the policy's row and the lane operations it calls are absorbed into them. Hand it to striped_rows_on_host:
//
//   striped_rows_on_host<Policy>(model, targets, threads, cudp::tiers::HWY_NAMESPACE::StripedVectorRun<Policy>{});
//
// Build the policy's tables (stripe_msv<L>...) in code of the same target too: they are made of the lane's words.
#if defined(CUDP_TIERS_STRIPED_ROWS_VECTOR_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef CUDP_TIERS_STRIPED_ROWS_VECTOR_INL_HPP_
#undef CUDP_TIERS_STRIPED_ROWS_VECTOR_INL_HPP_
#else
#define CUDP_TIERS_STRIPED_ROWS_VECTOR_INL_HPP_
#endif

#include <hwy/highway.h>

#include <cstddef>

#include "striped_rows_host.hpp"
#include "striped_targets.hpp"

HWY_BEFORE_NAMESPACE();
namespace cudp::tiers::HWY_NAMESPACE {

template <class Policy>
struct StripedVectorRun {
  using Base = StripedHostRun<Policy>;
  using Scratch = typename Base::Scratch;

  __attribute__((flatten)) HWY_NOINLINE Scratch scratch(const typename Policy::Model& md) const {
    return Base::scratch(md);
  }
  __attribute__((flatten)) HWY_NOINLINE typename Policy::Result one(const typename Policy::Model& md, Scratch& s,
                                                                    const StripedTargets& targets, std::size_t n) const {
    return Base::one(md, s, targets, n);
  }
};

}  // namespace cudp::tiers::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
