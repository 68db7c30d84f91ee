#pragma once
// A domain's alignment to the model as HMMER 3.3.2 shows it: the display rows of p7_alidisplay_Create, built from
// the optimal-accuracy columns of domain definition (plan7_traces.hpp, AlignedColumn), and the model's consensus
// line they show (p7_hmm_SetConsensus, for models whose file has no CONS column).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hmm_file.hpp"
#include "plan7_alphabet.hpp"
#include "plan7_hits.hpp"
#include "plan7_odds_profile.hpp"
#include "plan7_traces.hpp"

namespace cudp::hmmer {

// The consensus residue of every node, at [k] for k = 1..M ([0] is ' '): the file's CONS column when it has one,
// as HMMER reads it; otherwise the most probable match residue, upper case where its probability reaches 0.5
// (amino) or 0.9 (nucleic), lower case below.
inline std::string model_consensus(const HmmModel& model, const Plan7Alphabet& alphabet) {
  if (model.consensus.size() == static_cast<std::size_t>(model.length) + 1) return model.consensus;
  const float threshold = model.alphabet == HmmAlphabet::Amino ? 0.5f : 0.9f;
  std::string consensus(static_cast<std::size_t>(model.length) + 1, ' ');
  for (int k = 1; k <= model.length; ++k) {
    int best = 0;
    for (int x = 1; x < alphabet.K; ++x)
      if (model.match_probability(k, x) > model.match_probability(k, best)) best = x;
    const char c = alphabet.symbols[best];
    consensus[static_cast<std::size_t>(k)] =
        model.match_probability(k, best) >= threshold ? c : static_cast<char>(c - 'A' + 'a');
  }
  return consensus;
}

// p7_alidisplay_EncodePostProb: '0'..'9' for tenths (rounded), '*' from 0.95 on.
inline char encode_posterior(float p) {
  const double shifted = static_cast<double>(p) + 0.05;
  return shifted >= 1.0 ? '*' : static_cast<char>(static_cast<char>(shifted * 10.0) + '0');
}

// p7_alidisplay_DecodePostProb, the inverse HMMER applies to a display's codes (p7_alidisplay_Backconvert) before
// averaging them into an alignment's PP_cons line.
inline float decode_posterior(char code) {
  if (code == '0') return 0.01f;
  if (code == '*') return 1.0f;
  if (code == '.') return 0.0f;
  return static_cast<float>(static_cast<double>(static_cast<float>(code - '0')) / 10.0);
}

// The display rows of one domain. `columns` run from the first to the last match state, residues numbered 1..L in
// `dsq`; `consensus` is model_consensus(); `odds` gives the match emission odds that decide a '+'.
inline std::shared_ptr<const Plan7AlignmentDisplay> alignment_display(const std::vector<AlignedColumn>& columns,
                                                                      const std::string& consensus,
                                                                      const StripedOddsProfile& odds,
                                                                      const Plan7Alphabet& alphabet,
                                                                      const std::uint8_t* dsq) {
  auto display = std::make_shared<Plan7AlignmentDisplay>();
  const std::size_t n = columns.size();
  display->model.reserve(n);
  display->match.reserve(n);
  display->target.reserve(n);
  display->posterior.reserve(n);
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (const AlignedColumn& c : columns) {
    const char cons = consensus[static_cast<std::size_t>(c.k)];
    switch (c.state) {
      case TraceState::M: {
        const int x = dsq[c.i - 1];
        const float emission = odds.match(x)[odds.segment_of(c.k)].v[odds.lane_of(c.k)];
        display->model += cons;
        display->match += x == alphabet.sequence_alphabet.encode(cons) ? cons : emission > 1.0f ? '+' : ' ';
        display->target += alphabet.symbols[x];
        display->posterior += encode_posterior(c.pp);
        break;
      }
      case TraceState::I:
        display->model += '.';
        display->match += ' ';
        display->target += lower(alphabet.symbols[dsq[c.i - 1]]);
        display->posterior += encode_posterior(c.pp);
        break;
      default:  // D
        display->model += cons;
        display->match += ' ';
        display->target += '-';
        display->posterior += '.';
        break;
    }
  }
  return display;
}

}  // namespace cudp::hmmer
