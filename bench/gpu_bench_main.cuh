#pragma once
// The frame of a GPU benchmark program's main: -h or --help prints its usage; without a CUDA device it says so and
// exits with status 1 before reading anything; an error becomes one message and status 1, never an abort.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <exception>

template <class Body>
int run_gpu_bench(const char* name, const char* usage, int argc, char** argv, Body&& body) {
  for (int a = 1; a < argc; ++a)
    if (std::strcmp(argv[a], "-h") == 0 || std::strcmp(argv[a], "--help") == 0) {
      std::fputs(usage, stdout);
      return 0;
    }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "%s: no CUDA device found; this benchmark runs on the GPU\n", name);
    return 1;
  }
  try {
    return body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}
