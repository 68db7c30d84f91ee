// cudp-hmmsearch's host filters in the CPU's vectors: MSV/SSV in u8xn and the Viterbi filter in s16xn_saturating
// (lanes/host_vector-inl.hpp), as wide as the model's length makes worth it, compiled once per instruction set and chosen when the program
// runs. Where the chosen set is Highway's scalar or emulated one, the SSE2 words of host_filters.hpp run instead.
#include <optional>
#include <vector>

#include "host_filters.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "apps/hmmer/host_filters_vector.cpp"  // through the project root
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
namespace lanes_here = cudp::lanes::HWY_NAMESPACE;
using cudp::tiers::HWY_NAMESPACE::StripedVectorRun;

// The widest words (16, 32 or all the CPU has) that still give a model at least four segments per row: fewer, and
// a row's fixed work (the shift of the last segment, the reductions) outweighs the wider cells.
constexpr int kMinSegments = 4;
template <class T>
int word_bytes_for(int M) {
  constexpr int widest = static_cast<int>(sizeof(T)) * lanes_here::SaturatingVectorLane<T>::width;
  int bytes = 16;
  while (bytes * 2 <= widest && M >= kMinSegments * (bytes * 2 / static_cast<int>(sizeof(T)))) bytes *= 2;
  return bytes;
}

// `flatten`: the tables are built from the lane's words here, in this target's instructions.
__attribute__((flatten)) Results Msv(HostFilters& filters, const cudp::hmmer::MsvFilterProfile& profile) {
  switch (word_bytes_for<std::uint8_t>(profile.M)) {
    case 16: return filters.msv_in<lanes_here::u8xn_capped<16>, StripedVectorRun>(profile);
    case 32: return filters.msv_in<lanes_here::u8xn_capped<32>, StripedVectorRun>(profile);
    default: return filters.msv_in<lanes_here::u8xn, StripedVectorRun>(profile);
  }
}
__attribute__((flatten)) Results Viterbi(HostFilters& filters, const cudp::hmmer::ViterbiFilterProfile& profile,
                                         const std::vector<std::uint32_t>& ids) {
  switch (word_bytes_for<std::int16_t>(profile.M)) {
    case 16: return filters.viterbi_in<lanes_here::s16xn_saturating_capped<16>, StripedVectorRun>(profile, ids);
    case 32: return filters.viterbi_in<lanes_here::s16xn_saturating_capped<32>, StripedVectorRun>(profile, ids);
    default: return filters.viterbi_in<lanes_here::s16xn_saturating, StripedVectorRun>(profile, ids);
  }
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
