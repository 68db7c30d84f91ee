#pragma once
// Rate heterogeneity across sites: a discrete gamma distribution of K equally likely rates (Yang 1994, each the
// mean of its slice of the distribution, as IQ-TREE and RAxML use by default), optionally with a proportion of
// invariable sites. The variable sites' rates are scaled by 1 / (1 - p_inv), so that the mean rate over all sites
// stays 1 and branch lengths keep meaning substitutions per site. The gamma slices' means come from
// discrete_gamma.hpp (Boost.Math), kept apart so that device code need not compile it.
#include <stdexcept>
#include <utility>
#include <vector>

namespace cudp::phylo {

struct RateCategories {
  std::vector<double> rates;    // [category]
  std::vector<double> weights;  // [category], summing to 1 - invariant
  double invariant = 0;         // proportion of invariable sites
};

// gamma_rates: the rates of the variable sites before the invariable part rescales them (one rate of 1 for none).
inline RateCategories make_rate_categories(std::vector<double> gamma_rates, double invariant) {
  if (!(invariant >= 0 && invariant < 1))
    throw std::invalid_argument("the proportion of invariable sites is in [0, 1)");
  RateCategories r;
  r.rates = gamma_rates.empty() ? std::vector<double>{1.0} : std::move(gamma_rates);
  r.weights.assign(r.rates.size(), (1 - invariant) / static_cast<double>(r.rates.size()));
  for (double& rate : r.rates) rate /= 1 - invariant;
  r.invariant = invariant;
  return r;
}

}  // namespace cudp::phylo
