#pragma once
// Writes an HmmModel as HMMER 3.3.2 writes a profile (p7_hmmfile_WriteASCII, format HMMER3/f): the same fields in
// the same order and widths, probabilities as negative natural logs with five decimals ('*' for zero). A model
// built the way HMMER builds it therefore writes out as the same text, which is how single-sequence models are
// checked against hmmbuild (every line but DATE and COM). The logs are taken in float, as HMMER's writer does.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hmm_file.hpp"
#include "plan7_alphabet.hpp"

namespace cudp::hmmer {

namespace detail {

inline void write_probability(std::string& out, float p) {
  char field[32];
  if (p == 0.0f) {
    std::snprintf(field, sizeof field, " %8s", "*");
  } else if (p == 1.0f) {
    std::snprintf(field, sizeof field, " %8.5f", 0.0);
  } else {
    std::snprintf(field, sizeof field, " %8.5f", static_cast<double>(-std::log(p)));
  }
  out += field;
}

inline void write_probabilities(std::string& out, const std::vector<float>& values, std::size_t first, int count) {
  for (int x = 0; x < count; ++x) write_probability(out, values[first + static_cast<std::size_t>(x)]);
}

inline std::string formatted(const char* format, double a, double b) {
  char text[128];
  std::snprintf(text, sizeof text, format, a, b);
  return text;
}

}  // namespace detail

// The text of one model, from its format line to its closing //. The version stamp is HMMER 3.3.2's.
inline std::string hmm_file_text(const HmmModel& hmm) {
  const int K = hmm.residues();
  const int M = hmm.length;
  const auto KK = static_cast<std::size_t>(K);
  const Plan7Alphabet& alphabet = hmm.alphabet == HmmAlphabet::Amino ? plan7_amino()
                                  : hmm.alphabet == HmmAlphabet::Dna ? plan7_dna()
                                                                     : plan7_rna();
  std::string out = "HMMER3/f [3.3.2 | Nov 2020]\n";
  out += "NAME  " + hmm.name + "\n";
  if (!hmm.accession.empty()) out += "ACC   " + hmm.accession + "\n";
  if (!hmm.description.empty()) out += "DESC  " + hmm.description + "\n";
  out += "LENG  " + std::to_string(M) + "\n";
  if (hmm.max_length && *hmm.max_length > 0) out += "MAXL  " + std::to_string(*hmm.max_length) + "\n";
  out += std::string("ALPH  ") + alphabet_name(hmm.alphabet) + "\n";
  auto yes_no = [](bool b) { return b ? "yes\n" : "no\n"; };
  out += std::string("RF    ") + yes_no(!hmm.reference.empty());
  out += std::string("MM    ") + yes_no(!hmm.model_mask.empty());
  out += std::string("CONS  ") + yes_no(!hmm.consensus.empty());
  out += std::string("CS    ") + yes_no(!hmm.consensus_structure.empty());
  out += std::string("MAP   ") + yes_no(!hmm.alignment_map.empty());
  if (!hmm.date.empty()) out += "DATE  " + hmm.date + "\n";
  if (!hmm.command_log.empty()) {
    int number = 1;
    std::size_t start = 0;
    while (start <= hmm.command_log.size()) {
      const std::size_t end = hmm.command_log.find('\n', start);
      const std::string line =
          hmm.command_log.substr(start, end == std::string::npos ? std::string::npos : end - start);
      out += "COM   [" + std::to_string(number++) + "] " + line + "\n";
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  if (hmm.sequence_count && *hmm.sequence_count > 0) out += "NSEQ  " + std::to_string(*hmm.sequence_count) + "\n";
  if (hmm.effective_sequence_count && *hmm.effective_sequence_count >= 0) {
    char text[64];
    std::snprintf(text, sizeof text, "EFFN  %f\n",
                  static_cast<double>(static_cast<float>(*hmm.effective_sequence_count)));
    out += text;
  }
  if (hmm.checksum) out += "CKSUM " + std::to_string(*hmm.checksum) + "\n";
  const bool nucleic = hmm.alphabet != HmmAlphabet::Amino;
  auto cutoff = [&](const char* tag, const std::optional<HmmCutoff>& c) {
    if (!c) return;
    char text[128];
    if (nucleic) {
      std::snprintf(text, sizeof text, "%s    %.2f\n", tag, static_cast<double>(c->sequence));
    } else {
      std::snprintf(text, sizeof text, "%s    %.2f %.2f\n", tag, static_cast<double>(c->sequence),
                    static_cast<double>(c->domain));
    }
    out += text;
  };
  cutoff("GA", hmm.gathering);
  cutoff("TC", hmm.trusted);
  cutoff("NC", hmm.noise);
  if (hmm.stats) {
    const HmmStats& s = *hmm.stats;
    out += detail::formatted("STATS LOCAL MSV      %8.4f %8.5f\n", s.msv_mu, s.msv_lambda);
    out += detail::formatted("STATS LOCAL VITERBI  %8.4f %8.5f\n", s.viterbi_mu, s.viterbi_lambda);
    out += detail::formatted("STATS LOCAL FORWARD  %8.4f %8.5f\n", s.forward_tau, s.forward_lambda);
  }
  out += "HMM     ";
  for (int x = 0; x < K; ++x) out += std::string("     ") + alphabet.symbols[x] + "   ";
  out += "\n";
  char labels[128];
  std::snprintf(labels, sizeof labels, "        %8s %8s %8s %8s %8s %8s %8s\n", "m->m", "m->i", "m->d", "i->m", "i->i",
                "d->m", "d->d");
  out += labels;
  if (!hmm.composition.empty()) {
    out += "  COMPO ";
    detail::write_probabilities(out, hmm.composition, 0, K);
    out += "\n";
  }
  out += "        ";
  detail::write_probabilities(out, hmm.insert, 0, K);
  out += "\n        ";
  detail::write_probabilities(out, hmm.transitions, 0, kTransitionCount);
  out += "\n";
  for (int k = 1; k <= M; ++k) {
    const auto ku = static_cast<std::size_t>(k);
    char number[32];
    std::snprintf(number, sizeof number, " %6d ", k);
    out += number;
    detail::write_probabilities(out, hmm.match, ku * KK, K);
    if (!hmm.alignment_map.empty()) {
      std::snprintf(number, sizeof number, " %6d", hmm.alignment_map[ku]);
    } else {
      std::snprintf(number, sizeof number, " %6s", "-");
    }
    out += number;
    auto annotation = [&](const std::string& line) { return line.empty() ? '-' : line[ku]; };
    out += ' ';
    // A masked node shows the "any residue" symbol in lower case in place of its consensus.
    const char masked = static_cast<char>(std::tolower(static_cast<unsigned char>(alphabet.symbols[alphabet.any()])));
    out += (!hmm.model_mask.empty() && hmm.model_mask[ku] == 'm') ? masked : annotation(hmm.consensus);
    out += ' ';
    out += annotation(hmm.reference);
    out += ' ';
    out += annotation(hmm.model_mask);
    out += ' ';
    out += annotation(hmm.consensus_structure);
    out += "\n        ";
    detail::write_probabilities(out, hmm.insert, ku * KK, K);
    out += "\n        ";
    detail::write_probabilities(out, hmm.transitions, ku * kTransitionCount, kTransitionCount);
    out += "\n";
  }
  out += "//\n";
  return out;
}

inline void write_hmm(std::ostream& out, const HmmModel& hmm) { out << hmm_file_text(hmm); }

}  // namespace cudp::hmmer
