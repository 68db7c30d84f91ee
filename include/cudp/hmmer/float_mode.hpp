#pragma once
// HMMER's floating-point mode for the calling thread. Nothing in cudp sets it behind a caller's back: a program
// that wants HMMER's numbers from the host Forward, Backward and domain definition (plan7_odds_profile.hpp and the
// headers built on it) calls use_hmmer_float_mode() on each thread that runs them.
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__CUDA_ARCH__)
#include <xmmintrin.h>
#define CUDP_HAS_MXCSR 1
#endif

namespace cudp::hmmer {

// HMMER's impl_Init(), which hmmsearch runs on every thread: subnormal results flush to zero and subnormal inputs
// read as zero. The probability-space Forward and Backward underflow by design; with subnormals kept, the values
// that cross the thresholds of the sampled tracebacks could differ from HMMER's, and each subnormal operation costs
// a hundred cycles or more on many x86 cores. A per-thread setting: call it on each worker.
inline void use_hmmer_float_mode() {
#ifdef CUDP_HAS_MXCSR
  constexpr unsigned kDenormalsAreZero = 0x0040;  // MXCSR.DAZ (pmmintrin.h's _MM_DENORMALS_ZERO_ON)
  _mm_setcsr(_mm_getcsr() | _MM_FLUSH_ZERO_ON | kDenormalsAreZero);
#endif
}

// HMMER's floating-point mode for the calling thread while in scope, the thread's own mode restored after it (for
// threads that run other work too, such as a shared pool's).
class ScopedHmmerFloatMode {
 public:
  ScopedHmmerFloatMode() {
#ifdef CUDP_HAS_MXCSR
    saved_ = _mm_getcsr();
#endif
    use_hmmer_float_mode();
  }
  ~ScopedHmmerFloatMode() {
#ifdef CUDP_HAS_MXCSR
    _mm_setcsr(saved_);
#endif
  }
  ScopedHmmerFloatMode(const ScopedHmmerFloatMode&) = delete;
  ScopedHmmerFloatMode& operator=(const ScopedHmmerFloatMode&) = delete;

 private:
  unsigned saved_ = 0;
};

}  // namespace cudp::hmmer
