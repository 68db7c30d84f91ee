#pragma once
// Bit-for-bit comparison of striped Plan7 matrices (hmmer/plan7_posterior.hpp), for the tests that check a pass
// against another computation of the same floats.
#include <cstring>
#include <sstream>
#include <string>

#include "cudp/hmmer/plan7_posterior.hpp"

namespace cudp::test {

inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Where `got` first differs from `want` in the cells of rows first_row..L or in any row's special states, described;
// empty where they are the same, bit for bit.
inline std::string first_difference(const hmmer::StripedMatrix& got, const hmmer::StripedMatrix& want,
                                    int first_row) {
  using SM = hmmer::StripedMatrix;
  std::ostringstream where;
  where.precision(9);
  if (got.L != want.L || got.Q != want.Q) {
    where << "shape: L " << got.L << " against " << want.L << ", Q " << got.Q << " against " << want.Q;
    return where.str();
  }
  for (int i = first_row; i <= got.L; ++i) {
    for (int c = 0; c < got.Q * 3; ++c) {
      for (int r = 0; r < 4; ++r) {
        if (!same_bits(got.row(i)[c].v[r], want.row(i)[c].v[r])) {
          where << "row " << i << ", vector " << c / 3 << ", cell " << c % 3 << ", lane " << r << ": "
                << got.row(i)[c].v[r] << " against " << want.row(i)[c].v[r];
          return where.str();
        }
      }
    }
  }
  for (int i = 0; i <= got.L; ++i) {
    for (int s = 0; s < SM::kSpecials; ++s) {
      const auto special = static_cast<SM::Special>(s);
      if (!same_bits(got.x(i, special), want.x(i, special))) {
        where << "row " << i << ", special state " << s << ": " << got.x(i, special) << " against "
              << want.x(i, special);
        return where.str();
      }
    }
  }
  return "";
}

}  // namespace cudp::test
