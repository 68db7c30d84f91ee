#pragma once
// From HMMER's quantized filter profiles (hmmer/plan7_filters.hpp) to the striped tables the Plan7 filter policies
// read, for one StripedShape; and from the policies' raw results back to HMMER's filter scores, so that a device
// or host striped run returns exactly what msv_filter / viterbi_filter return.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "filter_survivors.hpp"
#include "plan7_filter_reference.hpp"
#include "plan7_profile.hpp"
#include "striped_forward.hpp"
#include "striped_msv.hpp"
#include "striped_ssv.hpp"
#include "striped_viterbi_filter.hpp"
#include "../lanes/s16x2.hpp"
#include "../lanes/u8x4.hpp"
#include "../recurrences/striped.hpp"
#include "../engine/sequences.hpp"
#include "../host/parallel_for.hpp"

namespace cudp::hmmer {

namespace detail {
// Fills a Kp- or Count-row striped table: value(row, node) for real nodes, padding for nodes past M.
template <class L, class Padding, class Value>
std::vector<typename L::word> stripe_rows(const recurrences::StripedShape& shape, int rows, int M, Padding padding,
                                          Value value) {
  std::vector<typename L::word> table(static_cast<std::size_t>(rows) * shape.words(), typename L::word{});
  for (int r = 0; r < rows; ++r) {
    for (int q = 0; q < shape.segments; ++q) {
      for (int t = 0; t < shape.group; ++t) {
        typename L::word w{};
        for (int b = 0; b < L::width; ++b) {
          const int k = shape.node(q, t, b);
          w = L::insert(w, b, k <= M ? value(r, k) : padding);
        }
        table[static_cast<std::size_t>(r) * shape.words() + shape.word_index(q, t)] = w;
      }
    }
  }
  return table;
}

// A length-model value of the profile for every target length 0 .. max_length, computed as the host filters
// compute it (set_target_length), so that the device uses exactly the same value.
template <class Value, class Profile, class Pick>
std::vector<Value> by_length(Profile profile, std::uint32_t max_length, Pick pick) {
  std::vector<Value> table(static_cast<std::size_t>(max_length) + 1);
  for (std::uint32_t n = 0; n <= max_length; ++n) {
    profile.set_target_length(n);
    table[n] = pick(profile);
  }
  return table;
}
}  // namespace detail

// The shape holding M nodes with `group` lanes: the fewest segments that fit.
inline recurrences::StripedShape striped_shape_for(int M, int group, int width) {
  const int positions = group * width;
  return {group, std::max(1, (M + positions - 1) / positions), width};
}

template <class L>
struct StripedMsvTables {
  using Policy = Plan7Msv<L>;
  recurrences::StripedShape shape;
  std::vector<typename L::word> costs;
  std::vector<std::uint8_t> move_costs;  // by target length, 0..max_length
  int bias = 0, base = 190, entry_cost = 0, end_cost = 0;

  typename Policy::Model model(const typename L::word* costs_at, const std::uint8_t* moves_at) const {
    typename Policy::Model md;
    md.costs = costs_at;
    md.move_cost_by_length = moves_at;
    md.shape = shape;
    md.bias = bias;
    md.base = base;
    md.entry_cost = entry_cost;
    md.end_cost = end_cost;
    return md;
  }
  typename Policy::Model host_model() const { return model(costs.data(), move_costs.data()); }

  // The same table serves SSV (hmmer/striped_ssv.hpp).
  typename Plan7Ssv<L>::Model ssv_model(const typename L::word* costs_at) const {
    typename Plan7Ssv<L>::Model md;
    md.costs = costs_at;
    md.shape = shape;
    md.bias = bias;
    return md;
  }
  typename Plan7Ssv<L>::Model host_ssv_model() const { return ssv_model(costs.data()); }
};

template <class L>
StripedMsvTables<L> stripe_msv(const MsvFilterProfile& profile, const recurrences::StripedShape& shape,
                               std::uint32_t max_length) {
  using Bytes = ByteSaturation<L>;
  StripedMsvTables<L> t;
  t.shape = shape;
  t.costs = detail::stripe_rows<L>(shape, profile.Kp, profile.M, Bytes::stored_cost(255, profile.bias),
                                   [&](int x, int k) { return Bytes::stored_cost(profile.cost(k, x), profile.bias); });
  t.move_costs = detail::by_length<std::uint8_t>(profile, max_length, [](const auto& p) { return p.move_cost; });
  t.bias = profile.bias;
  t.base = profile.base;
  t.entry_cost = profile.entry_cost;
  t.end_cost = profile.end_cost;
  return t;
}

// HMMER's p7_MSVFilter answer for a target of length L from the policy's result (the MSV DP gives the same score
// and status as SSV wherever SSV answers; see hmmer/plan7_filter_reference.hpp). The length model comes from the
// tables, as the device used it.
template <class L, class Result>
FilterResult msv_filter_result(const MsvFilterProfile& profile, const StripedMsvTables<L>& tables,
                               std::uint32_t length, const Result& r) {
  if (r.status == recurrences::StripedStatus::Overflow) return detail::overflow();
  return {FilterStatus::Ok, detail::msv_nats_from_j(profile, tables.move_costs[length], r.xJ)};
}

// The MSV policy's J value below which a target of each length (0..max_length of the tables) certainly fails the
// MSV stage: the least xJ whose msv_filter_result may_pass accepts, 256 where none does (an overflow always
// passes). The filter's score grows with xJ and may_pass with the score, so the walk from one length's answer to
// the next takes a step or two.
template <class L>
std::vector<std::int32_t> msv_least_j_by_length(const MsvFilterProfile& profile, const StripedMsvTables<L>& tables,
                                                const MsvMayPass& may_pass) {
  constexpr int kNone = 256;
  std::vector<std::int32_t> least(tables.move_costs.size(), kNone);
  int j = kNone;
  for (std::size_t length = 0; length < least.size(); ++length) {
    const int move_cost = tables.move_costs[length];
    const auto passes = [&](int x) {
      return may_pass(static_cast<std::uint32_t>(length), detail::msv_nats_from_j(profile, move_cost, x));
    };
    while (j > 0 && passes(j - 1)) --j;
    while (j < kNone && !passes(j)) ++j;
    least[length] = j;
  }
  return least;
}

// p7_SSVFilter's answer for a target of length L from the SSV policy's best diagonal score.
template <class L, class Result>
FilterResult ssv_filter_result(const MsvFilterProfile& profile, const StripedMsvTables<L>& tables,
                               std::uint32_t length, const Result& r) {
  return detail::ssv_from_best(profile, tables.move_costs[length], r.best);
}

template <class L>
struct StripedViterbiTables {
  using Policy = Plan7ViterbiFilter<L>;
  recurrences::StripedShape shape;
  std::vector<typename L::word> match, transitions;
  std::vector<std::int16_t> moves;  // N->B = J->B = C->T by target length, 0..max_length
  int base = 12000, e_loop = 0, e_move = 0, ddbound = 0, max_match = 0;

  typename Policy::Model model(const typename L::word* match_at, const typename L::word* transitions_at,
                               const std::int16_t* moves_at) const {
    typename Policy::Model md;
    md.match = match_at;
    md.transitions = transitions_at;
    md.move_by_length = moves_at;
    md.shape = shape;
    md.base = base;
    md.e_loop = e_loop;
    md.e_move = e_move;
    md.ddbound = ddbound;
    md.max_match = max_match;
    return md;
  }
  typename Policy::Model host_model() const { return model(match.data(), transitions.data(), moves.data()); }
};

template <class L>
StripedViterbiTables<L> stripe_viterbi(const ViterbiFilterProfile& p, const recurrences::StripedShape& shape,
                                       std::uint32_t max_length) {
  using T = ViterbiTransition;
  constexpr int floor = Plan7ViterbiFilter<L>::floor;
  auto clamp = [](int v) { return std::max(v, Plan7ViterbiFilter<L>::floor); };
  StripedViterbiTables<L> t;
  t.shape = shape;
  t.match = detail::stripe_rows<L>(shape, p.Kp, p.M, floor, [&](int x, int k) { return clamp(p.match_score(k, x)); });
  t.transitions = detail::stripe_rows<L>(shape, static_cast<int>(T::Count), p.M, floor, [&](int row, int k) {
    const ViterbiFilterNode& at = p.nodes[static_cast<std::size_t>(k)];
    const ViterbiFilterNode& from = p.nodes[static_cast<std::size_t>(k) - 1];
    switch (static_cast<T>(row)) {
      case T::Entry: return clamp(at.entry);
      case T::MM: return clamp(from.mm);
      case T::IM: return clamp(from.im);
      case T::DM: return clamp(from.dm);
      case T::MD: return clamp(at.md);
      case T::DD: return clamp(at.dd);
      case T::MI: return clamp(at.mi);
      default: return clamp(at.ii);
    }
  });
  t.moves = detail::by_length<std::int16_t>(p, max_length, [](const auto& v) { return v.n_move; });
  t.base = p.base;
  t.e_loop = p.e_loop;
  t.e_move = p.e_move;
  t.ddbound = p.ddbound;
  t.max_match = *std::max_element(p.match.begin(), p.match.end());
  return t;
}

// Whether the 16-bit words (floor -16384) give HMMER's Viterbi filter scores for this model and targets up to
// max_length: no real transition or residue score below the floor, and every row entered from B above it. Residue
// codes whose scores fall below the floor (not-a-residue, missing data) are returned in `unsafe_codes`: targets
// holding them must be scored elsewhere.
inline bool viterbi_filter_fits_words(const ViterbiFilterProfile& p, std::uint32_t max_length,
                                      std::uint64_t& unsafe_codes) {
  constexpr int floor = Plan7ViterbiFilter<lanes::s16x2>::floor;
  ViterbiFilterProfile longest = p;
  longest.set_target_length(max_length);
  const int lowest_b = p.base + longest.n_move;
  int lowest_entry = std::numeric_limits<int>::max();
  for (int k = 1; k <= p.M; ++k) {
    const ViterbiFilterNode& n = p.nodes[static_cast<std::size_t>(k)];
    lowest_entry = std::min<int>(lowest_entry, n.entry);
    if (n.entry <= floor) return false;
    if (k >= 2) {
      const ViterbiFilterNode& from = p.nodes[static_cast<std::size_t>(k) - 1];
      if (from.mm <= floor || from.im <= floor || from.dm <= floor) return false;
    }
    if (k < p.M && (n.md <= floor || n.dd <= floor || n.mi <= floor || n.ii <= floor)) return false;
  }
  if (lowest_b + lowest_entry <= floor) return false;
  unsafe_codes = 0;
  for (int x = 0; x < p.Kp; ++x) {
    int best_entry_and_score = std::numeric_limits<int>::min();
    bool below = false;
    for (int k = 1; k <= p.M; ++k) {
      below = below || p.match_score(k, x) <= floor;
      best_entry_and_score =
          std::max(best_entry_and_score, static_cast<int>(p.nodes[static_cast<std::size_t>(k)].entry) + p.match_score(k, x));
    }
    if (below || lowest_b + best_entry_and_score <= floor) unsafe_codes |= std::uint64_t{1} << x;
  }
  return true;
}

// The residue codes (bit x for code x, codes below 64) that occur anywhere in the database, read once on every
// core. Every model's Viterbi filter leaves some codes to the host (a gap, the nonresidue and the missing-data
// codes never score in the 16-bit words: viterbi_filter_fits_words), and scanning every Viterbi target for them,
// for every model, took longer than the filter's kernel; a database that holds none of them needs no scan.
inline std::uint64_t codes_present(const engine::SequencesView& db) {
  const std::uint64_t residues = db.count ? db.offsets[db.count] - db.offsets[0] : 0;
  constexpr std::uint64_t kChunk = std::uint64_t{1} << 22;
  const std::size_t chunks = static_cast<std::size_t>((residues + kChunk - 1) / kChunk);
  std::vector<std::uint64_t> found(chunks, 0);
  host::parallel_for(chunks, 0, [] { return 0; }, [&](int, std::size_t c) {
    std::array<std::uint8_t, 256> seen{};
    const std::uint8_t* at = db.residues + db.offsets[0] + c * kChunk;
    const std::uint64_t n = std::min(kChunk, residues - c * kChunk);
    for (std::uint64_t i = 0; i < n; ++i) seen[at[i]] = 1;
    for (int x = 0; x < 64; ++x) found[c] |= static_cast<std::uint64_t>(seen[static_cast<std::size_t>(x)]) << x;
  });
  std::uint64_t codes = 0;
  for (const std::uint64_t f : found) codes |= f;
  return codes;
}

// Whether target `id` holds a residue code of the set `codes` (bit x for code x): the targets a filter's words
// cannot score exactly (see viterbi_filter_fits_words).
inline bool holds_any_code(const engine::SequencesView& db, std::uint32_t id, std::uint64_t codes) {
  if (codes == 0) return false;
  const std::uint8_t* s = db.data(id);
  for (std::uint32_t i = 0, n = db.length(id); i < n; ++i) {
    if ((codes >> s[i]) & 1u) return true;
  }
  return false;
}

// HMMER's p7_ViterbiFilter answer from the policy's result, for a target of length L.
template <class L, class Result>
FilterResult viterbi_filter_result(const ViterbiFilterProfile& profile, const StripedViterbiTables<L>& tables,
                                   std::uint32_t length, const Result& r) {
  if (r.status == recurrences::StripedStatus::Overflow) return detail::overflow();
  if (r.xC <= -32768) return {FilterStatus::Ok, -std::numeric_limits<float>::infinity()};
  return {FilterStatus::Ok, detail::viterbi_nats_from_c(profile, tables.moves[length], r.xC)};
}

struct StripedForwardTables {
  using Policy = Plan7Forward;
  recurrences::StripedShape shape;
  std::vector<float> match, transitions;
  float expected_j_uses = 1.0f, e_loop = 0.5f, e_move = 0.5f;

  Policy::Model model(const float* match_at, const float* transitions_at) const {
    Policy::Model md;
    md.match = match_at;
    md.transitions = transitions_at;
    md.shape = shape;
    md.expected_j_uses = expected_j_uses;
    md.e_loop = e_loop;
    md.e_move = e_move;
    return md;
  }
  Policy::Model host_model() const { return model(match.data(), transitions.data()); }
};

// Odds (exp of the profile's log scores) in the striped layout; absent transitions and padding are 0.
inline StripedForwardTables stripe_forward(const Plan7Profile& p, const recurrences::StripedShape& shape) {
  using T = ForwardTransition;
  using L = lanes::f32;
  auto odds = [](float log_score) { return std::exp(log_score); };
  StripedForwardTables t;
  t.shape = shape;
  t.match = detail::stripe_rows<L>(shape, p.alphabet->Kp, p.M, 0.0f, [&](int x, int k) { return odds(p.match_score(k, x)); });
  t.transitions = detail::stripe_rows<L>(shape, static_cast<int>(T::Count), p.M, 0.0f, [&](int row, int k) {
    switch (static_cast<T>(row)) {
      case T::Entry: return odds(p.entry[static_cast<std::size_t>(k)]);
      case T::MM: return odds(p.transition(k - 1, kMM));
      case T::IM: return odds(p.transition(k - 1, kIM));
      case T::DM: return odds(p.transition(k - 1, kDM));
      case T::MD: return odds(p.transition(k, kMD));
      case T::DD: return odds(p.transition(k, kDD));
      case T::MI: return odds(p.transition(k, kMI));
      default: return odds(p.transition(k, kII));
    }
  });
  t.expected_j_uses = p.expected_j_uses;
  t.e_loop = odds(p.e.loop);
  t.e_move = odds(p.e.move);
  return t;
}

}  // namespace cudp::hmmer
