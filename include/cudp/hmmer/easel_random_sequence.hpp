#pragma once
// Random i.i.d. sequences as Easel 0.48 samples them (esl_rsq_xfIID over esl_rnd_FChoose): one uniform deviate per
// residue, compared with the running sum of the float probabilities (taken in double, renormalised by their double
// sum). HMMER's model calibration scores such sequences; sampling them from the same generator in the same way
// gives the same sequences, and so the same fitted E-value parameters.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "easel_random.hpp"

namespace cudp::hmmer {

// A residue index drawn from p (p.size() choices).
inline int easel_choose(EaselFastRandom& random, const std::vector<float>& p) {
  const double roll = random.next();
  double norm = 0.0;
  for (const float v : p) norm += v;
  double sum = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    sum += static_cast<double>(p[i]);
    if (roll < sum / norm) return static_cast<int>(i);
  }
  throw std::logic_error("easel_choose: the probabilities do not sum to one");
}

// easel_choose's thresholds (sum / norm for each choice), worked out once for many draws: the same doubles in the
// same order, so the same draws, without the per-residue sums.
class EaselChooser {
 public:
  explicit EaselChooser(const std::vector<float>& p) : thresholds_(p.size()) {
    double norm = 0.0;
    for (const float v : p) norm += v;
    double sum = 0.0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      sum += static_cast<double>(p[i]);
      thresholds_[i] = sum / norm;
    }
  }
  int operator()(EaselFastRandom& random) const {
    const double roll = random.next();
    for (std::size_t i = 0; i < thresholds_.size(); ++i) {
      if (roll < thresholds_[i]) return static_cast<int>(i);
    }
    throw std::logic_error("easel_choose: the probabilities do not sum to one");
  }

 private:
  std::vector<double> thresholds_;
};

// L residues drawn i.i.d. into codes[0..L-1].
inline void easel_iid_sequence(EaselFastRandom& random, const EaselChooser& choose, std::size_t L,
                               std::uint8_t* codes) {
  for (std::size_t i = 0; i < L; ++i) codes[i] = static_cast<std::uint8_t>(choose(random));
}

// L residues drawn i.i.d. from p into codes[0..L-1].
inline void easel_iid_sequence(EaselFastRandom& random, const std::vector<float>& p, std::size_t L,
                               std::vector<std::uint8_t>& codes) {
  codes.resize(L);
  easel_iid_sequence(random, EaselChooser(p), L, codes.data());
}

}  // namespace cudp::hmmer
