#pragma once
// Easel's "fast" random number generator (esl_randomness_CreateFast, esl_random): what hmmsearch's domain
// definition samples tracebacks with. HMMER reseeds it (seed 42 unless --seed) before every multi-domain region, so
// the samples of a target do not depend on what was searched before; reproducing them needs the same generator.
#include <cstdint>

namespace cudp::hmmer {

// Knuth's 32-bit linear congruential generator, its state dispersed from the seed
// by esl_rnd_mix3.
class EaselFastRandom {
 public:
  explicit EaselFastRandom(std::uint32_t seed = 42) { init(seed); }
  void init(std::uint32_t seed) {
    seed_ = seed;
    x_ = mix3(seed, 87654321u, 12345678u);
    if (x_ == 0) x_ = 42;
  }
  std::uint32_t seed() const { return seed_; }
  // esl_random: uniform on [0, 1).
  double next() {
    x_ = x_ * 69069u + 1u;
    return static_cast<double>(x_) / 4294967296.0;
  }

 private:
  // esl_rnd_mix3: Bob Jenkins' 96-bit mix.
  // clang-format off
  static std::uint32_t mix3(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    a -= b; a -= c; a ^= (c >> 13);
    b -= c; b -= a; b ^= (a << 8);
    c -= a; c -= b; c ^= (b >> 13);
    a -= b; a -= c; a ^= (c >> 12);
    b -= c; b -= a; b ^= (a << 16);
    c -= a; c -= b; c ^= (b >> 5);
    a -= b; a -= c; a ^= (c >> 3);
    b -= c; b -= a; b ^= (a << 10);
    c -= a; c -= b; c ^= (b >> 15);
    return c;
  }
  // clang-format on
  std::uint32_t seed_ = 42, x_ = 0;
};

}  // namespace cudp::hmmer
