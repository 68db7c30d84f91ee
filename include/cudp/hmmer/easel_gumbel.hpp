#pragma once
// Maximum likelihood Gumbel fits to complete data (Easel 0.48's esl_gumbel_FitComplete and
// esl_gumbel_FitCompleteLoc, after Lawless 1982), and the Gumbel quantile: what HMMER's model calibration fits
// the score samples of random sequences with (model_calibration.hpp). Double precision in Easel's order of
// operations, so that a fitted location reproduces HMMER's to the last bit.
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace cudp::hmmer {

struct GumbelFit {
  double mu = 0;
  double lambda = 0;
};

namespace detail {

// Lawless' equation 4.1.6 for lambda, and its derivative.
inline void lawless416(const std::vector<double>& x, double lambda, double& f, double& df) {
  double esum = 0, xesum = 0, xxesum = 0, xsum = 0;
  for (const double v : x) {
    xsum += v;
    xesum += v * std::exp(-1.0 * lambda * v);
    xxesum += v * v * std::exp(-1.0 * lambda * v);
    esum += std::exp(-1.0 * lambda * v);
  }
  const auto n = static_cast<double>(x.size());
  f = (1.0 / lambda) - (xsum / n) + (xesum / esum);
  df = ((xesum / esum) * (xesum / esum)) - (xxesum / esum) - (1.0 / (lambda * lambda));
}

// Lawless 4.1.5: mu given lambda.
inline double gumbel_location(const std::vector<double>& x, double lambda) {
  double esum = 0;
  for (const double v : x) esum += std::exp(-lambda * v);
  return -std::log(esum / static_cast<double>(x.size())) / lambda;
}

}  // namespace detail

// mu for a known lambda.
inline double gumbel_fit_location(const std::vector<double>& x, double lambda) {
  if (x.size() <= 1) throw std::invalid_argument("gumbel_fit_location: needs at least two samples");
  return detail::gumbel_location(x, lambda);
}

// mu and lambda. Newton/Raphson on Lawless 4.1.6 from the moment estimate of lambda, falling back to bisection as
// Easel does when 100 steps do not converge.
inline GumbelFit gumbel_fit(const std::vector<double>& x) {
  const std::size_t n = x.size();
  if (n <= 1) throw std::invalid_argument("gumbel_fit: needs at least two samples");
  double sum = 0, squares = 0;
  for (const double v : x) {
    sum += v;
    squares += v * v;
  }
  const double variance = (squares - sum * sum / static_cast<double>(n)) / (static_cast<double>(n) - 1);
  constexpr double kPi = 3.14159265358979323846264338328;
  constexpr double tolerance = 1e-5;
  double lambda = kPi / std::sqrt(6.0 * variance);
  double f = 0, df = 0;
  int i = 0;
  for (; i < 100; ++i) {
    detail::lawless416(x, lambda, f, df);
    if (std::fabs(f) < tolerance) break;
    lambda = lambda - f / df;
    if (lambda <= 0.0) lambda = 0.001;
  }
  if (i == 100) {
    double left = 0.0;
    double right = kPi / std::sqrt(6.0 * variance);
    double mid = 0;
    detail::lawless416(x, lambda, f, df);
    while (f > 0.0) {
      right *= 2.0;
      if (right > 1000.0) throw std::runtime_error("gumbel_fit: failed to bracket lambda");
      detail::lawless416(x, right, f, df);
    }
    for (i = 0; i < 100; ++i) {
      mid = (left + right) / 2.0;
      detail::lawless416(x, mid, f, df);
      if (std::fabs(f) < tolerance) break;
      if (f > 0.0) {
        left = mid;
      } else {
        right = mid;
      }
    }
    if (i == 100) throw std::runtime_error("gumbel_fit: bisection did not converge");
    lambda = mid;
  }
  return {detail::gumbel_location(x, lambda), lambda};
}

// The x at which the Gumbel CDF is p.
inline double gumbel_quantile(double p, double mu, double lambda) {
  return mu - (std::log(-1.0 * std::log(p)) / lambda);
}

}  // namespace cudp::hmmer
