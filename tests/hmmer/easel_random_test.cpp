// The Easel "fast" generator against Easel itself. The states below were read inside HMMER 3.3.2
// (hmmer-examples' src/hmmpgmd2msa_utest, which carries Easel with debug information) under gdb:
//   break 'p7_Pipeline.constprop.0.isra.0'; run globins4.hmm; print pli->r->x; continue; print pli->r->x; ...
// At the first pipeline call the generator made by esl_randomness_CreateFast(42) holds 1265258399, nothing drawn
// yet; at later calls it holds 2890288936 and 3928186206, which lie 34,909 and 35,607 draws further along the
// sequence seeded with 42 (the pipeline's domain definition draws in between). esl_random returns the state after
// the draw divided by 2^32.
#include <cstdint>

#include <catch2/catch.hpp>

#include "cudp/hmmer/easel_random.hpp"

namespace {
std::uint32_t state_of(double draw) { return static_cast<std::uint32_t>(draw * 4294967296.0); }
}  // namespace

TEST_CASE("EaselFastRandom follows Easel's sequence for seed 42", "[hmmer][random]") {
  cudp::hmmer::EaselFastRandom r(42);
  REQUIRE(r.seed() == 42);
  // The first draw comes from the seeded state 1265258399 by one step of Knuth's generator: 69069 x + 1 mod 2^32.
  const double first = r.next();
  CHECK(state_of(first) == 432788820u);
  CHECK(first == 432788820.0 / 4294967296.0);
  std::uint32_t state = 0;
  for (int k = 2; k <= 34909; ++k) state = state_of(r.next());
  CHECK(state == 2890288936u);
  for (int k = 34910; k <= 35607; ++k) state = state_of(r.next());
  CHECK(state == 3928186206u);
}

TEST_CASE("EaselFastRandom: reseeding restarts the sequence", "[hmmer][random]") {
  cudp::hmmer::EaselFastRandom r(42);
  const double first = r.next();
  r.next();
  r.init(42);
  CHECK(r.next() == first);
  cudp::hmmer::EaselFastRandom other(7);
  CHECK(other.next() != first);
}
