#pragma once
// Compilation-target macros shared by every header.

#if defined(__CUDACC__)
#define CUDP_HD __host__ __device__ __forceinline__
#define CUDP_DEVICE __device__ __forceinline__
#else
#define CUDP_HD inline
#define CUDP_DEVICE inline
#endif

// True while nvcc compiles the device side of a translation unit.
#if defined(__CUDA_ARCH__)
#define CUDP_DEVICE_PASS 1
#else
#define CUDP_DEVICE_PASS 0
#endif

// Hopper and later execute the DPX instructions natively; elsewhere the same intrinsics are emulated.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CUDP_HAS_DPX 1
#else
#define CUDP_HAS_DPX 0
#endif

// Unrolls the loop that follows: fully on the device, where nvcc reads `#pragma unroll` (its device pass is the only
// one that defines __CUDA_ARCH__), and with clang, which reads it too. GCC has no `#pragma unroll` and warned about
// it under -Wall (-Wunknown-pragmas) while ignoring it; it gets nothing, so host code compiles exactly as before,
// and its -O3 still peels the short constant-count loops these mark. (`#pragma GCC unroll N` would need a count.)
#if defined(__CUDA_ARCH__) || defined(__clang__)
#define CUDP_UNROLL _Pragma("unroll")
#else
#define CUDP_UNROLL
#endif
