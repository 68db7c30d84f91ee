#pragma once
// From a model as written (model_spec.hpp) to what an evaluation reads (the rate matrix's eigen system, the rate
// categories), and back to text: a spec whose values are all filled in prints as the IQ-TREE model string that
// reproduces it, which is how optimised parameters are reported.
#include <cstdio>
#include <string>

#include "discrete_gamma.hpp"
#include "eigen_decomposition.hpp"
#include "model_spec.hpp"
#include "tree_likelihood.hpp"

namespace cudp::phylo {

inline LikelihoodModel make_likelihood_model(const ModelSpec& spec, const CharacterCoding& coding,
                                             const SitePatterns& data) {
  LikelihoodModel m;
  m.coding = &coding;
  m.model = make_model(spec, coding, data);
  m.eigen = decompose(m.model);
  m.rates = make_rate_categories(spec.gamma_categories, spec.alpha.value_or(1.0),
                                 spec.invariant ? spec.invariant_proportion.value_or(0.0) : 0.0);
  return m;
}

namespace detail {

inline std::string braced(const std::vector<double>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", values[i]);
    out += (i ? "," : "") + std::string(text);
  }
  return out + "}";
}

}  // namespace detail

// The model string of a spec: its parameters where they are set, the frequencies as the spec chooses them (those
// of `used` where they were given or optimised, so that the string fixes them).
inline std::string format_model(const ModelSpec& spec, const SubstitutionModel& used) {
  std::string out = spec.base;
  if (!spec.base_parameters.empty()) out += detail::braced(spec.base_parameters);
  switch (spec.frequencies) {
    case FrequencyChoice::equal:
      out += "+FQ";
      break;
    case FrequencyChoice::empirical:
      out += "+F";
      break;
    case FrequencyChoice::given:
    case FrequencyChoice::optimized:
      out += "+F" + detail::braced(used.frequencies);
      break;
    case FrequencyChoice::codon_f1x4:
      out += "+F1X4";
      break;
    case FrequencyChoice::codon_f3x4:
      out += "+F3X4";
      break;
    case FrequencyChoice::model_default:
      break;
  }
  if (spec.gamma_categories > 0) {
    out += "+G" + std::to_string(spec.gamma_categories);
    if (spec.alpha) out += detail::braced({*spec.alpha});
  }
  if (spec.invariant) {
    out += "+I";
    if (spec.invariant_proportion) out += detail::braced({*spec.invariant_proportion});
  }
  return out;
}

}  // namespace cudp::phylo
