#pragma once
// The filters of cudp-hmmsearch's host backend: the same striped policies as the GPU runs, on host threads, in
// HMMER's saturating words (u8 for MSV, s16 for the Viterbi filter, scores and statuses bit for bit HMMER's) as wide
// as the CPU's vectors where the program has the host vector lanes, in SSE2 words (HMMER's own layout) otherwise,
// and the striped float Forward for the F3 pre-filter. The same interface as
// DeviceFilters, so that one staged search serves both backends. Without SSE2 (not x86) it has no filters and the
// host backend runs the scalar pipeline per target.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include <cudp/hmmer/plan7_bias_filter.hpp>
#include <cudp/hmmer/plan7_filter_reference.hpp>
#include <cudp/hmmer/plan7_odds_layout.hpp>
#include <cudp/hmmer/plan7_profile.hpp>
#include <cudp/hmmer/striped_tables.hpp>
#include <cudp/engine/sequences.hpp>
#include <cudp/lanes/sse.hpp>
#include <cudp/host/parallel_for.hpp>
#include <cudp/tiers/striped_rows_host.hpp>

namespace hmmsearch {

class HostFilters;
#if defined(CUDP_HAS_HOST_VECTOR)
// The filters in the CPU's widest vectors (host_filters_vector.cpp), or nothing where it has none Highway can use.
std::optional<std::vector<cudp::hmmer::FilterResult>> vector_msv(HostFilters& filters,
                                                                 const cudp::hmmer::MsvFilterProfile& profile);
std::optional<std::vector<cudp::hmmer::FilterResult>> vector_viterbi(HostFilters& filters,
                                                                     const cudp::hmmer::ViterbiFilterProfile& profile,
                                                                     const std::vector<std::uint32_t>& ids);
#endif

// HMMER's exact Forward scores of the targets `ids` of `db` (p7_ForwardParser, in nats), four at a time in AVX-512
// words on `threads` threads (host_exact_forward.cpp), or nothing where the CPU has no AVX-512.
std::optional<std::vector<float>> exact_forward(const cudp::engine::SequencesView& db, int threads,
                                                const cudp::hmmer::Plan7Profile& profile,
                                                const std::vector<std::uint32_t>& ids);

class HostFilters {
 public:
  HostFilters(const cudp::engine::SequencesView& db, int threads) : db_(db), threads_(threads), all_(db.count) {
    for (std::uint32_t i = 0; i < all_.size(); ++i) {
      all_[i] = i;
      max_length_ = std::max(max_length_, db.length(i));
    }
  }

#if CUDP_HAS_SSE_LANES
  // p7_MSVFilter as HMMER runs it: SSV for every target, the MSV DP for those where SSV cannot answer. In the CPU's
  // widest vectors where the program has them (host_filters_vector.cpp), in SSE2 words otherwise.
  std::vector<cudp::hmmer::FilterResult> msv(const cudp::hmmer::MsvFilterProfile& profile) {
#if defined(CUDP_HAS_HOST_VECTOR)
    if (auto out = vector_msv(*this, profile)) return std::move(*out);
#endif
    return msv_in<cudp::lanes::u8x16, cudp::tiers::StripedHostRun>(profile);
  }

  // The bias filter stays in the pipeline's decisions, on the host's workers.
  std::vector<cudp::hmmer::BiasSum> bias(const cudp::hmmer::BiasModel&, const std::vector<std::uint32_t>&) {
    return {};
  }

  std::vector<cudp::hmmer::FilterResult> viterbi(const cudp::hmmer::ViterbiFilterProfile& profile,
                                                 const std::vector<std::uint32_t>& ids) {
#if defined(CUDP_HAS_HOST_VECTOR)
    if (auto out = vector_viterbi(*this, profile, ids)) return std::move(*out);
#endif
    return viterbi_in<cudp::lanes::s16x8, cudp::tiers::StripedHostRun>(profile, ids);
  }

  // The filters in lane L, each target run by Run<Policy> (tiers::StripedHostRun's interface). A caller compiled
  // for a vector instruction set absorbs these whole (`flatten`), table building included.
  template <class L, template <class> class Run>
  std::vector<cudp::hmmer::FilterResult> msv_in(const cudp::hmmer::MsvFilterProfile& profile) {
    const auto tables = cudp::hmmer::stripe_msv<L>(profile, cudp::hmmer::striped_shape_for(profile.M, 1, L::width),
                                                   max_length_);
    const auto ssv = cudp::tiers::striped_rows_on_host<cudp::hmmer::Plan7Ssv<L>>(
        tables.host_ssv_model(), targets(all_), threads_, Run<cudp::hmmer::Plan7Ssv<L>>{});
    std::vector<cudp::hmmer::FilterResult> out(ssv.size());
    std::vector<std::uint32_t> undecided;
    for (std::uint32_t i = 0; i < ssv.size(); ++i) {
      out[i] = cudp::hmmer::ssv_filter_result(profile, tables, db_.length(i), ssv[i]);
      if (out[i].status == cudp::hmmer::FilterStatus::NoResult) undecided.push_back(i);
    }
    const auto msv = cudp::tiers::striped_rows_on_host<cudp::hmmer::Plan7Msv<L>>(
        tables.host_model(), targets(undecided), threads_, Run<cudp::hmmer::Plan7Msv<L>>{});
    for (std::size_t n = 0; n < undecided.size(); ++n) {
      out[undecided[n]] = cudp::hmmer::msv_filter_result(profile, tables, db_.length(undecided[n]), msv[n]);
    }
    return out;
  }

  template <class L, template <class> class Run>
  std::vector<cudp::hmmer::FilterResult> viterbi_in(const cudp::hmmer::ViterbiFilterProfile& profile,
                                                    const std::vector<std::uint32_t>& ids) {
    std::vector<cudp::hmmer::FilterResult> out(ids.size());
    std::uint64_t unsafe_codes = 0;
    const bool words_exact = cudp::hmmer::viterbi_filter_fits_words(profile, max_length_, unsafe_codes);
    cudp::hmmer::StripedViterbiTables<L> tables;
    std::vector<typename cudp::hmmer::Plan7ViterbiFilter<L>::Result> raw;
    if (words_exact) {
      tables = cudp::hmmer::stripe_viterbi<L>(profile, cudp::hmmer::striped_shape_for(profile.M, 1, L::width),
                                              max_length_);
      raw = cudp::tiers::striped_rows_on_host<cudp::hmmer::Plan7ViterbiFilter<L>>(
          tables.host_model(), targets(ids), threads_, Run<cudp::hmmer::Plan7ViterbiFilter<L>>{});
    }
    // Targets the words cannot score exactly (see viterbi_filter_fits_words) take the scalar reference.
    cudp::host::parallel_for(ids.size(), threads_, [&] { return profile; },
                              [&](cudp::hmmer::ViterbiFilterProfile& p, std::size_t n) {
                                const std::uint32_t id = ids[n];
                                if (!words_exact || cudp::hmmer::holds_any_code(db_, id, unsafe_codes)) {
                                  p.set_target_length(db_.length(id));
                                  out[n] = cudp::hmmer::viterbi_filter(p, db_.data(id), db_.length(id));
                                } else {
                                  out[n] = cudp::hmmer::viterbi_filter_result(profile, tables, db_.length(id), raw[n]);
                                }
                              });
    return out;
  }

  // The host pipeline computes the parsers itself (Plan7Pipeline::after_filters without rows).
  bool parsers(const cudp::hmmer::OddsTables&, const std::vector<std::uint32_t>&, cudp::hmmer::ParserRowsBatch&) {
    return false;
  }
  std::size_t parsers_at_once(const cudp::hmmer::OddsTables&) { return 0; }
  void call_off_parsers(bool) {}

  // The host's workers rescore the envelopes themselves (Plan7Pipeline::rescore_envelope).
  bool envelopes(const cudp::hmmer::OddsTables&, const std::vector<cudp::hmmer::EnvelopeRequest>&, bool,
                 cudp::hmmer::EnvelopeBatch&) {
    return false;
  }

  // The F3 pre-filter's scores. Where the CPU has AVX-512 they are HMMER's exact Forward scores, four targets at a
  // time: the float Forward filter runs in scalar lanes on the host, four times slower.
  std::vector<float> forward(const cudp::hmmer::Plan7Profile& profile, const std::vector<std::uint32_t>& ids) {
    if (auto out = exact_forward(db_, threads_, profile, ids)) return std::move(*out);
    const auto tables = cudp::hmmer::stripe_forward(profile, cudp::hmmer::striped_shape_for(profile.M, 1, 1));
    const auto raw = cudp::tiers::striped_rows_on_host<cudp::hmmer::Plan7Forward>(tables.host_model(),
                                                                                         targets(ids), threads_);
    std::vector<float> out(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) out[i] = raw[i].nats;
    return out;
  }

#endif

 private:
  cudp::tiers::StripedTargets targets(const std::vector<std::uint32_t>& ids) const {
    return {db_.residues, db_.offsets, ids.data(), static_cast<std::uint32_t>(ids.size())};
  }

  cudp::engine::SequencesView db_;
  int threads_;
  std::vector<std::uint32_t> all_;
  std::uint32_t max_length_ = 0;
};

}  // namespace hmmsearch
