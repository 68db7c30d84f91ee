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

#if defined(__CUDACC__) || defined(__clang__) || defined(__GNUC__)
#define CUDP_UNROLL _Pragma("unroll")
#else
#define CUDP_UNROLL
#endif
