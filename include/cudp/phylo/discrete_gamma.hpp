#pragma once
// Discrete gamma rate categories (Yang 1994), from Boost.Math's incomplete gamma functions.
#include <boost/math/special_functions/gamma.hpp>

#include <stdexcept>
#include <vector>

#include "rate_categories.hpp"

namespace cudp::phylo {

// The mean rate of each of k equal-probability slices of Gamma(shape alpha, mean 1). The slice between the
// quantiles x_(i-1) and x_i has mean k * [P(alpha + 1, alpha x_i) - P(alpha + 1, alpha x_(i-1))], P the regularised
// lower incomplete gamma function.
inline std::vector<double> discrete_gamma_rates(double alpha, int k) {
  if (!(alpha > 0) || k < 1) throw std::invalid_argument("discrete_gamma_rates: alpha > 0 and k >= 1");
  std::vector<double> rates(static_cast<std::size_t>(k));
  if (k == 1) {
    rates[0] = 1;
    return rates;
  }
  double below = 0;  // P(alpha + 1, alpha x_(i-1))
  double sum = 0;
  for (int i = 1; i <= k; ++i) {
    double above = 1;
    if (i < k) {
      const double cut = boost::math::gamma_p_inv(alpha, static_cast<double>(i) / k);  // alpha x_i
      above = boost::math::gamma_p(alpha + 1, cut);
    }
    rates[static_cast<std::size_t>(i - 1)] = k * (above - below);
    sum += rates[static_cast<std::size_t>(i - 1)];
    below = above;
  }
  // The slices' means average to 1 exactly in theory; rounding is divided out.
  for (double& r : rates) r *= k / sum;
  return rates;
}

// k gamma categories of shape alpha (none for k = 0), and invariable sites.
inline RateCategories make_rate_categories(int gamma_categories, double alpha, double invariant) {
  return make_rate_categories(gamma_categories > 0 ? discrete_gamma_rates(alpha, gamma_categories)
                                                   : std::vector<double>{},
                              invariant);
}

}  // namespace cudp::phylo
