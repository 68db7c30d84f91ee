#pragma once
// The check both parser tests make: special rows computed elsewhere (four targets at a time on the host, or on the
// GPU) against the host's single-target striped_forward and striped_backward of the same target, bit for bit:
// every special of every row, the Backward's switch to its own scale factors, the scale sums rebuilt from the rows
// and the Forward score. The caller's thread must be in HMMER's float mode.
#include <cstdint>
#include <cstring>

#include <catch2/catch.hpp>

#include "cudp/hmmer/plan7_posterior.hpp"

namespace cudp::test {

inline std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Row i of special rows computed elsewhere (`got`) against the host's Forward and Backward matrices, bit for bit.
inline void require_same_specials(const hmmer::ParserSpecials& got, const hmmer::StripedMatrix& fwd,
                                  const hmmer::StripedMatrix& bck, int i) {
  using SM = hmmer::StripedMatrix;
  for (int s = 0; s < SM::kSpecials; ++s) {
    const auto special = static_cast<SM::Special>(s);
    const std::size_t at = static_cast<std::size_t>(i) * SM::kSpecials + static_cast<std::size_t>(s);
    INFO("row " << i << " special " << s);
    REQUIRE(bits_of(got.forward[at]) == bits_of(fwd.x(i, special)));
    REQUIRE(bits_of(got.backward[at]) == bits_of(bck.x(i, special)));
  }
}

// `om` in multihit mode for L; returns how many of the target's Forward rows were rescaled.
inline long require_same_parser_rows(const hmmer::StripedOddsProfile& om, const std::uint8_t* dsq, int L,
                                     const hmmer::ParserSpecials& got) {
  using SM = hmmer::StripedMatrix;
  SM fwd, bck, adopted_fwd, adopted_bck;
  const float score = hmmer::striped_forward(om, dsq, L, fwd, false);
  hmmer::striped_backward(om, dsq, L, fwd, bck, false);
  long scaled = 0;
  for (int i = 0; i <= L; ++i) {
    require_same_specials(got, fwd, bck, i);
    scaled += fwd.x(i, SM::kScale) != 1.0f;
  }
  REQUIRE(got.backward_own_scales == bck.has_own_scales);
  hmmer::adopt_parser_specials(adopted_fwd, om.M(), om.Q(), L, got.forward, true, true);
  hmmer::adopt_parser_specials(adopted_bck, om.M(), om.Q(), L, got.backward, false, got.backward_own_scales);
  REQUIRE(bits_of(adopted_fwd.totscale) == bits_of(fwd.totscale));
  REQUIRE(bits_of(adopted_bck.totscale) == bits_of(bck.totscale));
  REQUIRE(bits_of(hmmer::forward_parser_score(om, adopted_fwd)) == bits_of(score));
  return scaled;
}

}  // namespace cudp::test
