// cudp-hmmsearch's host filters in the CPU's widest vectors: MSV/SSV in u8xn and the Viterbi filter in
// s16xn_saturating (lanes/host_vector-inl.hpp), compiled once per instruction set and chosen when the program
// runs. Where the chosen set is Highway's scalar or emulated one, the SSE2 words of host_filters.hpp run instead.
#include <optional>
#include <vector>

#include "host_filters.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "examples/hmmsearch/host_filters_vector.cpp"  // through the project root
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cudp/lanes/host_vector-inl.hpp>
#include <cudp/tiers/striped_rows_vector-inl.hpp>

HWY_BEFORE_NAMESPACE();
namespace hmmsearch::HWY_NAMESPACE {

using Results = std::optional<std::vector<cudp::hmmer::FilterResult>>;

#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
Results Msv(HostFilters&, const cudp::hmmer::MsvFilterProfile&) { return std::nullopt; }
Results Viterbi(HostFilters&, const cudp::hmmer::ViterbiFilterProfile&, const std::vector<std::uint32_t>&) {
  return std::nullopt;
}
#else
// `flatten`: the tables are built from the lane's words here, in this target's instructions.
__attribute__((flatten)) Results Msv(HostFilters& filters, const cudp::hmmer::MsvFilterProfile& profile) {
  return filters.msv_in<cudp::lanes::HWY_NAMESPACE::u8xn, cudp::tiers::HWY_NAMESPACE::StripedVectorRun>(profile);
}
__attribute__((flatten)) Results Viterbi(HostFilters& filters, const cudp::hmmer::ViterbiFilterProfile& profile,
                                         const std::vector<std::uint32_t>& ids) {
  return filters.viterbi_in<cudp::lanes::HWY_NAMESPACE::s16xn_saturating, cudp::tiers::HWY_NAMESPACE::StripedVectorRun>(
      profile, ids);
}
#endif

}  // namespace hmmsearch::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hmmsearch {
HWY_EXPORT(Msv);
HWY_EXPORT(Viterbi);

std::optional<std::vector<cudp::hmmer::FilterResult>> vector_msv(HostFilters& filters,
                                                                 const cudp::hmmer::MsvFilterProfile& profile) {
  return HWY_DYNAMIC_DISPATCH(Msv)(filters, profile);
}
std::optional<std::vector<cudp::hmmer::FilterResult>> vector_viterbi(HostFilters& filters,
                                                                     const cudp::hmmer::ViterbiFilterProfile& profile,
                                                                     const std::vector<std::uint32_t>& ids) {
  return HWY_DYNAMIC_DISPATCH(Viterbi)(filters, profile, ids);
}
}  // namespace hmmsearch
#endif
