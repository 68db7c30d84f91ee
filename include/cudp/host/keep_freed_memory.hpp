#pragma once
// The host heap of a process that allocates and frees large answers over and over (a batch's alignments).
#include <climits>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace cudp::host {

// Asks glibc's allocator to keep freed memory for reuse rather than give it back to the kernel. Otherwise a batch's
// answers freed and allocated again (100,000 alignments, about 100 MB of edit runs) fault in every page anew, and
// the host threads that decode them queue on the page-fault lock. On the H200's host, the 100,000-pair protein
// batch took 0.038 s with glibc's defaults and 0.034 s with these settings (bench/RESULTS.md, 2026-12-02, third
// session). It is a setting for the whole process, so it belongs in an application's main(), not in a library
// call. Elsewhere it does nothing.
inline void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // blocks of up to 32 MiB come from the heap, which is kept
  mallopt(M_TRIM_THRESHOLD, INT_MAX);   // the heap's free top is not given back
  mallopt(M_TOP_PAD, 256 << 20);        // and it grows in large steps
#endif
}

}  // namespace cudp::host
