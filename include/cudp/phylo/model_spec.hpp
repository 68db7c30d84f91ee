#pragma once
// Model names as IQ-TREE writes them, so that a command line carries over: a base model with optional parameters
// in braces, then +F (empirical frequencies), +FQ (equal), +F{...} (given), +FO (fitted; counted to start with),
// +F1X4 / +F3X4 (codon frequencies from nucleotide frequencies), +G[k][{alpha}] and +I[{p}].
//   GTR{1,2,3,4,5}+F{0.1,0.2,0.3,0.4}+G4{0.5}+I{0.2}     HKY{2.5}+G      JC      LG+F+G4{0.7}      GY{0.2,2.5}+F3X4
// A parameter left out takes its default here (kappa 2, omega 1, rates 1, alpha 1, p_inv 0) and is what --optimize
// fits.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../io/error.hpp"
#include "character_coding.hpp"
#include "codon_model.hpp"
#include "protein_models.hpp"
#include "site_patterns.hpp"
#include "substitution_model.hpp"

namespace cudp::phylo {

// optimized (+FO) is counted like empirical for an evaluation; --optimize takes those counts as its start.
enum class FrequencyChoice { model_default, equal, empirical, given, optimized, codon_f1x4, codon_f3x4 };

enum class ModelData { dna, protein, codon };

struct ModelSpec {
  std::string base;  // JC, F81, K80, HKY, TN93, SYM, GTR; Poisson, LG, WAG, JTT; GY
  std::vector<double> base_parameters;
  FrequencyChoice frequencies = FrequencyChoice::model_default;
  std::vector<double> given_frequencies;
  int gamma_categories = 0;
  std::optional<double> alpha;
  bool invariant = false;
  std::optional<double> invariant_proportion;

  ModelData data() const;
  bool protein() const { return data() == ModelData::protein; }
  bool codon() const { return data() == ModelData::codon; }
};

namespace detail {

// What a model's frequencies are when the model string says nothing: equal, counted from the data (+F), or the
// ones published with an empirical matrix.
enum class DefaultFrequencies { equal, counted, published };

struct NamedModel {
  const char* name;
  const char* aliases;  // space-separated
  int parameters;       // how many the braces may give
  DefaultFrequencies frequencies;
  ModelData data;
};

inline constexpr NamedModel named_models[] = {
    {"JC", "JC69", 0, DefaultFrequencies::equal, ModelData::dna},
    {"F81", "", 0, DefaultFrequencies::counted, ModelData::dna},
    {"K80", "K2P", 1, DefaultFrequencies::equal, ModelData::dna},
    {"HKY", "HKY85", 1, DefaultFrequencies::counted, ModelData::dna},
    {"TN93", "TN TRN", 2, DefaultFrequencies::counted, ModelData::dna},
    {"SYM", "", 5, DefaultFrequencies::equal, ModelData::dna},
    {"GTR", "", 5, DefaultFrequencies::counted, ModelData::dna},
    {"Poisson", "POISSON", 0, DefaultFrequencies::equal, ModelData::protein},
    {"LG", "", 0, DefaultFrequencies::published, ModelData::protein},
    {"WAG", "", 0, DefaultFrequencies::published, ModelData::protein},
    {"JTT", "", 0, DefaultFrequencies::published, ModelData::protein},
    // GY{omega,kappa}: IQ-TREE 2.0.7 takes no values in braces for GY; this is the order it reports and fits them
    // in. Its default frequencies for GY are the codon frequencies counted from the data (GY+F).
    {"GY", "GY94", 2, DefaultFrequencies::counted, ModelData::codon},
};

inline const NamedModel* find_model(std::string_view name) {
  for (const NamedModel& m : named_models) {
    if (name == m.name) return &m;
    std::string_view aliases = m.aliases;
    while (!aliases.empty()) {
      const std::size_t space = aliases.find(' ');
      if (aliases.substr(0, space) == name) return &m;
      aliases = space == std::string_view::npos ? std::string_view{} : aliases.substr(space + 1);
    }
  }
  return nullptr;
}

inline const char* data_name(ModelData d) {
  return d == ModelData::dna ? "DNA" : d == ModelData::protein ? "protein" : "codon";
}

[[noreturn]] inline void bad_model(std::string_view text, const std::string& why) {
  throw std::invalid_argument("--model '" + std::string(text) + "': " + why);
}

// "{a,b,c}" at text[pos]: the numbers, pos moved past the brace.
inline std::vector<double> parse_braces(std::string_view text, std::size_t& pos) {
  std::vector<double> values;
  if (pos >= text.size() || text[pos] != '{') return values;
  const std::size_t close = text.find('}', pos);
  if (close == std::string_view::npos) bad_model(text, "a '{' is not closed");
  std::string inside(text.substr(pos + 1, close - pos - 1));
  std::size_t start = 0;
  while (start <= inside.size()) {
    std::size_t comma = inside.find_first_of(",/", start);
    if (comma == std::string::npos) comma = inside.size();
    const std::string item = inside.substr(start, comma - start);
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !std::isfinite(v)) bad_model(text, "'" + item + "' is not a number");
    values.push_back(v);
    start = comma + 1;
  }
  pos = close + 1;
  return values;
}

}  // namespace detail

inline ModelData ModelSpec::data() const {
  const detail::NamedModel* named = detail::find_model(base);
  if (named == nullptr) throw std::invalid_argument("unknown model '" + base + "'");
  return named->data;
}

inline ModelSpec parse_model(std::string_view text) {
  ModelSpec spec;
  std::size_t pos = 0;
  while (pos < text.size() && (std::isalnum(static_cast<unsigned char>(text[pos])) != 0)) ++pos;
  const detail::NamedModel* model = detail::find_model(text.substr(0, pos));
  if (model == nullptr) {
    std::string known;
    for (const auto& m : detail::named_models) known += std::string(known.empty() ? "" : ", ") + m.name;
    detail::bad_model(text, "unknown model '" + std::string(text.substr(0, pos)) + "' (known: " + known + ")");
  }
  spec.base = model->name;
  spec.base_parameters = detail::parse_braces(text, pos);
  if (spec.base_parameters.size() > static_cast<std::size_t>(model->parameters))
    detail::bad_model(text, spec.base + " takes " + std::to_string(model->parameters) + " parameter(s), got " +
                                std::to_string(spec.base_parameters.size()));
  while (pos < text.size()) {
    if (text[pos] != '+') detail::bad_model(text, "expected '+' at character " + std::to_string(pos + 1));
    ++pos;
    if (text.substr(pos, 4) == "F1X4" || text.substr(pos, 4) == "F3X4") {
      spec.frequencies = text[pos + 1] == '1' ? FrequencyChoice::codon_f1x4 : FrequencyChoice::codon_f3x4;
      pos += 4;
      if (!spec.codon()) detail::bad_model(text, "+" + std::string(text.substr(pos - 4, 4)) + " is for codon models");
    } else if (text.substr(pos, 2) == "FQ") {
      pos += 2;
      spec.frequencies = FrequencyChoice::equal;
    } else if (text.substr(pos, 2) == "FO") {
      pos += 2;
      spec.frequencies = FrequencyChoice::optimized;
    } else if (text.substr(pos, 1) == "F") {
      ++pos;
      spec.given_frequencies = detail::parse_braces(text, pos);
      spec.frequencies = spec.given_frequencies.empty() ? FrequencyChoice::empirical : FrequencyChoice::given;
    } else if (text.substr(pos, 1) == "G") {
      ++pos;
      int k = 0;
      while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) != 0 && k < 1000)
        k = k * 10 + (text[pos++] - '0');
      spec.gamma_categories = k == 0 ? 4 : k;
      const auto v = detail::parse_braces(text, pos);
      if (v.size() > 1 || (v.size() == 1 && !(v[0] > 0))) detail::bad_model(text, "+G takes one shape alpha > 0");
      if (!v.empty()) spec.alpha = v[0];
    } else if (text.substr(pos, 1) == "I") {
      ++pos;
      spec.invariant = true;
      const auto v = detail::parse_braces(text, pos);
      if (v.size() > 1 || (v.size() == 1 && !(v[0] >= 0 && v[0] < 1)))
        detail::bad_model(text, "+I takes one proportion in [0, 1)");
      if (!v.empty()) spec.invariant_proportion = v[0];
    } else {
      detail::bad_model(text, "unknown component '+" + std::string(text.substr(pos)) + "'");
    }
  }
  return spec;
}

// Stationary frequencies counted from the data. An ambiguity set's count is shared among its states in proportion
// to the current estimate until the estimate settles; gaps and missing data count for nothing.
inline std::vector<double> empirical_frequencies(const SitePatterns& patterns, const CharacterCoding& coding) {
  const auto states = static_cast<std::size_t>(coding.states());
  std::vector<double> count_of_code(static_cast<std::size_t>(coding.code_count()), 0.0);
  for (int t = 0; t < patterns.taxa; ++t)
    for (int p = 0; p < patterns.patterns; ++p)
      count_of_code[static_cast<std::size_t>(patterns.code(t, p))] += patterns.weights[static_cast<std::size_t>(p)];
  std::vector<double> freq(states, 1.0 / static_cast<double>(states));
  for (int round = 0; round < 1000; ++round) {
    std::vector<double> next(states, 0.0);
    for (int code = 0; code < coding.code_count(); ++code) {
      const double n = count_of_code[static_cast<std::size_t>(code)];
      if (n == 0 || code == coding.states()) continue;
      const std::uint64_t mask = coding.mask(code);
      double share = 0;
      for (std::size_t s = 0; s < states; ++s)
        if ((mask >> s) & 1) share += freq[s];
      for (std::size_t s = 0; s < states; ++s)
        if ((mask >> s) & 1) next[s] += n * freq[s] / share;
    }
    double total = 0;
    for (const double v : next) total += v;
    if (total == 0) return freq;  // nothing but gaps: equal frequencies
    double change = 0;
    for (std::size_t s = 0; s < states; ++s) {
      next[s] /= total;
      change = std::max(change, std::abs(next[s] - freq[s]));
    }
    freq = next;
    if (change < 1e-12) break;
  }
  return freq;
}

// A state the data never show would have frequency 0, which the symmetric eigen-decomposition cannot take (it
// divides by sqrt(pi)). It gets 1e-10 instead, taken from the most frequent state: IQ-TREE 2.0.7's log-likelihoods
// are those of the limit pi -> 0, which 1e-10 gives to about 1e-7, and the decomposition's cancellation stays near
// 1e-11. (IQ-TREE 1 raised such states to 1e-4, which moves the log-likelihood visibly.)
inline void raise_rare_frequencies(std::vector<double>& freq) {
  constexpr double floor = 1e-10;
  std::size_t largest = 0;
  double total = 0;
  for (std::size_t s = 0; s < freq.size(); ++s) {
    if (freq[s] > freq[largest]) largest = s;
    freq[s] = std::max(freq[s], floor);
    total += freq[s];
  }
  freq[largest] += 1.0 - total;
}

// The model a spec names, for data of this coding; empirical frequencies are counted from the patterns.
inline SubstitutionModel make_model(const ModelSpec& spec, const CharacterCoding& coding, const SitePatterns& data) {
  const ModelData kind = spec.data();
  const ModelData data_kind = coding.width() == 3     ? ModelData::codon
                              : coding.states() == 20 ? ModelData::protein
                                                      : ModelData::dna;
  if (kind != data_kind || coding.states() != (kind == ModelData::dna       ? 4
                                               : kind == ModelData::protein ? 20
                                                                            : genetic_code::sense_codons))
    // Bad input rather than a bad command line: which model fits depends on the data read.
    throw io::InputError("--model " + spec.base + " is a " + detail::data_name(kind) + " model, but the data are " +
                         coding.name() + (kind == ModelData::codon ? " (give --data codon)" : ""));
  const auto n = static_cast<std::size_t>(coding.states());
  SubstitutionModel m;
  m.states = coding.states();
  m.exchangeabilities.assign(n * n, 1.0);
  const auto set = [&](int i, int j, double v) {
    m.exchangeabilities[static_cast<std::size_t>(i) * n + static_cast<std::size_t>(j)] = v;
    m.exchangeabilities[static_cast<std::size_t>(j) * n + static_cast<std::size_t>(i)] = v;
  };
  const auto& p = spec.base_parameters;
  for (const double v : p)
    if (!(v > 0)) throw std::invalid_argument("--model " + spec.base + ": every parameter must be positive");
  const protein_models::EmpiricalProteinModel* table = protein_models::find(spec.base);
  enum { A, C, G, T };
  if (spec.base == "K80" || spec.base == "HKY") {
    const double kappa = p.empty() ? 2.0 : p[0];
    set(A, G, kappa);
    set(C, T, kappa);
  } else if (spec.base == "TN93") {
    set(A, G, p.size() > 0 ? p[0] : 2.0);
    set(C, T, p.size() > 1 ? p[1] : 2.0);
  } else if (spec.base == "SYM" || spec.base == "GTR") {
    const int pairs[5][2] = {{A, C}, {A, G}, {A, T}, {C, G}, {C, T}};  // G-T is the reference, 1
    for (std::size_t k = 0; k < p.size(); ++k) set(pairs[k][0], pairs[k][1], p[k]);
  } else if (table != nullptr) {
    for (int i = 0; i < 20; ++i)
      for (int j = 0; j < i; ++j) set(i, j, table->exchangeability(i, j));
  } else if (spec.base == "GY") {
    m.exchangeabilities = gy94_exchangeabilities(p.size() > 0 ? p[0] : 1.0, p.size() > 1 ? p[1] : 2.0);
  }
  // GY94's codons that differ at two or three positions do not exchange; every other model's states all do.
  if (kind != ModelData::codon)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (i != j && !(m.exchangeabilities[i * n + j] > 0))
          throw std::invalid_argument("--model " + spec.base + ": every rate must be positive");
  FrequencyChoice choice = spec.frequencies;
  const detail::NamedModel* named = detail::find_model(spec.base);
  if (choice == FrequencyChoice::model_default && named->frequencies == detail::DefaultFrequencies::counted)
    choice = FrequencyChoice::empirical;
  if (choice == FrequencyChoice::model_default && named->frequencies == detail::DefaultFrequencies::equal)
    choice = FrequencyChoice::equal;
  switch (choice) {
    case FrequencyChoice::model_default: {  // an empirical matrix's published frequencies
      double total = 0;
      for (const double f : table->frequencies) total += f;
      for (const double f : table->frequencies) m.frequencies.push_back(f / total);
      break;
    }
    case FrequencyChoice::equal:
      m.frequencies.assign(n, 1.0 / static_cast<double>(n));
      break;
    case FrequencyChoice::empirical:
    case FrequencyChoice::optimized:
      m.frequencies = empirical_frequencies(data, coding);
      raise_rare_frequencies(m.frequencies);
      break;
    case FrequencyChoice::codon_f1x4:
    case FrequencyChoice::codon_f3x4:
      m.frequencies = codon_frequencies_from_nucleotides(data, choice == FrequencyChoice::codon_f3x4);
      raise_rare_frequencies(m.frequencies);
      break;
    case FrequencyChoice::given: {
      if (spec.given_frequencies.size() != n)
        throw std::invalid_argument("--model: +F{...} needs " + std::to_string(n) + " frequencies, got " +
                                    std::to_string(spec.given_frequencies.size()));
      double total = 0;
      for (const double f : spec.given_frequencies) {
        if (!(f > 0)) throw std::invalid_argument("--model: every frequency in +F{...} must be positive");
        total += f;
      }
      for (const double f : spec.given_frequencies) m.frequencies.push_back(f / total);
    }
  }
  return m;
}

}  // namespace cudp::phylo
