#pragma once
// Shared by the host and GPU tests of the striped Plan7 filters: random and adversarial cases, the database they
// form, and HMMER's filter scores from the scalar reference (hmmer/plan7_filter_reference.hpp) to compare with.
#include <cstdint>
#include <string>
#include <vector>

#include "cudp/hmmer/plan7.hpp"
#include "cudp/hmmer/plan7_filter_reference.hpp"
#include "cudp/engine/sequences.hpp"
#include "random_plan7.hpp"

namespace cudp::test {

struct StripedFilterCase {
  hmmer::HmmModel hmm;
  hmmer::Plan7Profile profile;
  hmmer::MsvFilterProfile msv;
  hmmer::ViterbiFilterProfile viterbi;
  std::vector<std::uint8_t> residues;
  std::vector<std::uint64_t> offsets{0};
  std::vector<std::uint32_t> ids;  // every target, in an order that is not the length order

  engine::SequencesView view() const { return {residues.data(), offsets.data(), offsets.size() - 1}; }
  std::uint32_t length(std::uint32_t id) const { return static_cast<std::uint32_t>(offsets[id + 1] - offsets[id]); }
  const std::uint8_t* data(std::uint32_t id) const { return residues.data() + offsets[id]; }
};

inline StripedFilterCase make_striped_case(const RandomModelOptions& o, int targets, int max_length) {
  StripedFilterCase c;
  c.hmm = random_hmm(o);
  const auto& alphabet = hmmer::plan7_alphabet_of(c.hmm.alphabet);
  c.profile = hmmer::configure_profile(c.hmm, hmmer::default_null_model(alphabet));
  c.msv = hmmer::make_msv_filter_profile(c.profile, 400);
  c.viterbi = hmmer::make_viterbi_filter_profile(c.profile, 400);
  for (const auto& s : random_targets(c.profile, targets, max_length, o.seed * 7919u + 1)) {
    c.residues.insert(c.residues.end(), s.begin(), s.end());
    c.offsets.push_back(c.residues.size());
  }
  for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(targets); ++i) c.ids.push_back((i * 7u) % static_cast<std::uint32_t>(targets));
  return c;
}

inline hmmer::FilterResult reference_msv(StripedFilterCase& c, std::uint32_t id) {
  c.msv.set_target_length(c.length(id));
  return hmmer::msv_filter(c.msv, c.data(id), c.length(id));
}

inline hmmer::FilterResult reference_viterbi(StripedFilterCase& c, std::uint32_t id) {
  c.viterbi.set_target_length(c.length(id));
  return hmmer::viterbi_filter(c.viterbi, c.data(id), c.length(id));
}

inline bool same_filter_result(const hmmer::FilterResult& a, const hmmer::FilterResult& b) {
  return a.status == b.status && (a.status != hmmer::FilterStatus::Ok || a.nats == b.nats);
}

inline std::string describe(const hmmer::FilterResult& r) {
  return r.status == hmmer::FilterStatus::Overflow ? std::string("overflow") : std::to_string(r.nats);
}

// The model sizes and kinds every striped filter test covers: a single node, sizes around segment boundaries,
// long delete chains.
inline std::vector<RandomModelOptions> striped_model_ladder() {
  std::vector<RandomModelOptions> ladder;
  std::uint32_t seed = 11;
  for (int M : {1, 2, 3, 17, 64, 65, 100, 129, 257, 400}) {
    ladder.push_back({M, false, seed++});
    if (M >= 17) ladder.push_back({M, true, seed++});
  }
  return ladder;
}

}  // namespace cudp::test
