// The E-values HMMER's programs print: with the FTZ and DAZ bits set on every thread, a value below the normal
// double range is 0 (an issue found on a 2691-node model's hits of 1020-1075 bits; the whole outputs are compared
// with hmmsearch's in tests/apps/hmmsearch_vs_hmmsearch.py, case protein-underflow).
#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <thread>

#include <cudp/hmmer/plan7_hits.hpp>

using cudp::hmmer::evalue;

TEST_CASE("E-values below the normal double range print as 0, whatever the thread's mode", "[hmmer][hits]") {
  // On a fresh thread (default MXCSR: subnormals kept) exp(-720) is a subnormal, which HMMER never prints.
  double plain = 1.0, ours = 1.0;
  std::thread([&] {
    plain = std::exp(-720.0);
    ours = evalue(-720.0, 1.0);
  }).join();
  REQUIRE(plain > 0.0);
  REQUIRE(plain < DBL_MIN);
  CHECK(ours == 0.0);
  // A subnormal P-value is 0 before the search space multiplies it, even a search space that would lift it back.
  CHECK(evalue(-720.0, 1e10) == 0.0);
  // A normal P-value whose product with the search space is subnormal.
  CHECK(evalue(-700.0, 1e-10) == 0.0);
  // Normal values pass unchanged.
  CHECK(evalue(-700.0, 1.0) == std::exp(-700.0));
  CHECK(evalue(std::log(1e-5), 570000.0) == std::exp(std::log(1e-5)) * 570000.0);
  CHECK(evalue(0.0, 3.0) == 3.0);
}
