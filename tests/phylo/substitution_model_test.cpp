// Rate matrices, their eigen-decomposition and the transition matrices they give, against closed forms and the
// identities any P(t) of a reversible model obeys; discrete gamma rates against IQ-TREE's printed values.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "cudp/phylo/discrete_gamma.hpp"
#include "cudp/phylo/eigen_decomposition.hpp"

namespace {

using cudp::phylo::SubstitutionModel;

SubstitutionModel gtr(std::vector<double> rates, std::vector<double> freqs) {
  SubstitutionModel m;
  m.states = 4;
  m.exchangeabilities.assign(16, 1.0);
  const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (int k = 0; k < 6; ++k) {
    m.exchangeabilities[static_cast<std::size_t>(pairs[k][0] * 4 + pairs[k][1])] = rates[static_cast<std::size_t>(k)];
    m.exchangeabilities[static_cast<std::size_t>(pairs[k][1] * 4 + pairs[k][0])] = rates[static_cast<std::size_t>(k)];
  }
  m.frequencies = std::move(freqs);
  return m;
}

std::vector<double> p_of(const cudp::phylo::EigenSystem& e, double t) {
  std::vector<double> p(static_cast<std::size_t>(e.states * e.states));
  e.transition_matrix(t, p.data());
  return p;
}

}  // namespace

TEST_CASE("JC69 and K80 transition matrices equal their closed forms", "[phylo][model]") {
  const auto jc = cudp::phylo::decompose(gtr({1, 1, 1, 1, 1, 1}, {0.25, 0.25, 0.25, 0.25}));
  for (const double t : {0.0, 1e-6, 0.05, 0.7, 3.0, 10.0}) {
    const auto p = p_of(jc, t);
    const double same = 0.25 + 0.75 * std::exp(-4.0 * t / 3.0), other = 0.25 - 0.25 * std::exp(-4.0 * t / 3.0);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        CHECK(p[static_cast<std::size_t>(i * 4 + j)] == Approx(i == j ? same : other).margin(1e-14));
  }
  // K80 with kappa: transitions A<->G, C<->T. With d = t (one substitution per unit), the classic formulas.
  const double kappa = 3.5;
  const auto k80 = cudp::phylo::decompose(gtr({1, kappa, 1, 1, kappa, 1}, {0.25, 0.25, 0.25, 0.25}));
  for (const double t : {0.01, 0.3, 2.0}) {
    const auto p = p_of(k80, t);
    const double b = 1 / (kappa + 2);  // transversion rate per unit time after normalisation
    const double transversion = 0.25 - 0.25 * std::exp(-4 * b * t);
    const double transition = 0.25 + 0.25 * std::exp(-4 * b * t) - 0.5 * std::exp(-2 * (kappa + 1) * b * t);
    CHECK(p[0 * 4 + 2] == Approx(transition).margin(1e-14));
    CHECK(p[1 * 4 + 3] == Approx(transition).margin(1e-14));
    CHECK(p[0 * 4 + 1] == Approx(transversion).margin(1e-14));
    CHECK(p[2 * 4 + 3] == Approx(transversion).margin(1e-14));
  }
}

TEST_CASE("GTR transition matrices are stochastic, reversible and compose", "[phylo][model]") {
  const SubstitutionModel m = gtr({1.3, 4.1, 0.7, 1.9, 3.3, 1}, {0.1, 0.2, 0.3, 0.4});
  // Q is normalised: one expected substitution per unit time.
  const auto q = m.rate_matrix();
  double rate = 0;
  for (int i = 0; i < 4; ++i) rate -= m.frequencies[static_cast<std::size_t>(i)] * q[static_cast<std::size_t>(i * 5)];
  CHECK(rate == Approx(1.0).epsilon(1e-14));
  const auto e = cudp::phylo::decompose(m);
  for (const double t : {0.0, 0.02, 0.5, 4.0}) {
    const auto p = p_of(e, t);
    for (int i = 0; i < 4; ++i) {
      double row = 0;
      for (int j = 0; j < 4; ++j) {
        row += p[static_cast<std::size_t>(i * 4 + j)];
        CHECK(
            m.frequencies[static_cast<std::size_t>(i)] * p[static_cast<std::size_t>(i * 4 + j)] ==
            Approx(m.frequencies[static_cast<std::size_t>(j)] * p[static_cast<std::size_t>(j * 4 + i)]).margin(1e-15));
        if (t == 0) CHECK(p[static_cast<std::size_t>(i * 4 + j)] == Approx(i == j ? 1.0 : 0.0).margin(1e-14));
      }
      CHECK(row == Approx(1.0).epsilon(1e-14));
    }
  }
  // Chapman-Kolmogorov: P(s + t) = P(s) P(t).
  const auto ps = p_of(e, 0.3), pt = p_of(e, 0.45), pst = p_of(e, 0.75);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double v = 0;
      for (int k = 0; k < 4; ++k)
        v += ps[static_cast<std::size_t>(i * 4 + k)] * pt[static_cast<std::size_t>(k * 4 + j)];
      CHECK(v == Approx(pst[static_cast<std::size_t>(i * 4 + j)]).margin(1e-14));
    }
  // A long branch forgets its start: every row tends to the stationary frequencies.
  const auto far = p_of(e, 200.0);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      CHECK(far[static_cast<std::size_t>(i * 4 + j)] ==
            Approx(m.frequencies[static_cast<std::size_t>(j)]).margin(1e-12));
}

TEST_CASE("a zero stationary frequency is refused", "[phylo][model]") {
  CHECK_THROWS_AS(cudp::phylo::decompose(gtr({1, 1, 1, 1, 1, 1}, {0.5, 0.5, 0.0, 0.0})), std::invalid_argument);
}

TEST_CASE("discrete gamma mean rates equal IQ-TREE's for alpha 0.5", "[phylo][rates]") {
  // IQ-TREE 2.0.7, GTR+G4{0.5}: "Category Relative_rate: 0.03339 0.2519 0.8203 2.894" (mean of each slice).
  const auto r = cudp::phylo::discrete_gamma_rates(0.5, 4);
  CHECK(r[0] == Approx(0.03339).epsilon(2e-4));
  CHECK(r[1] == Approx(0.2519).epsilon(2e-4));
  CHECK(r[2] == Approx(0.8203).epsilon(2e-4));
  CHECK(r[3] == Approx(2.894).epsilon(2e-4));
  for (const double alpha : {0.05, 0.3, 1.0, 7.0, 200.0})
    for (const int k : {1, 2, 4, 8, 16}) {
      const auto rates = cudp::phylo::discrete_gamma_rates(alpha, k);
      double mean = 0;
      for (std::size_t i = 0; i < rates.size(); ++i) {
        mean += rates[i] / k;
        if (i > 0) CHECK(rates[i] > rates[i - 1]);
      }
      CHECK(mean == Approx(1.0).epsilon(1e-13));
    }
  // Very large alpha: every site at rate 1.
  for (const double v : cudp::phylo::discrete_gamma_rates(1e6, 4)) CHECK(v == Approx(1.0).epsilon(2e-3));
}

TEST_CASE("invariable sites scale the variable rates so that the mean rate stays 1", "[phylo][rates]") {
  const auto r = cudp::phylo::make_rate_categories(4, 0.8, 0.25);
  double mean = 0, weight = 0;
  for (std::size_t i = 0; i < r.rates.size(); ++i) {
    mean += r.weights[i] * r.rates[i];
    weight += r.weights[i];
  }
  CHECK(weight == Approx(0.75));
  CHECK(mean == Approx(1.0).epsilon(1e-13));
  CHECK_THROWS_AS(cudp::phylo::make_rate_categories(4, 0.8, 1.0), std::invalid_argument);
}
