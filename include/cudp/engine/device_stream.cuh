#pragma once
// A stream of one's own for work that runs beside other threads' work on the same GPU: non-blocking (it neither
// waits for nor holds up the legacy default stream), at a priority, with temporary storage for Thrust that does not
// stop the device. hmmsearch runs the next model's MSV filter over the whole database while the current model's
// later filters need the GPU for a few milliseconds each; at high priority the block scheduler gives their blocks
// the places the long kernel's blocks leave, before that kernel's waiting blocks.
#include <cstddef>

#include <cub/util_allocator.cuh>
#include <thrust/execution_policy.h>

#include "cuda_check.cuh"

namespace cudp::engine {

enum class StreamPriority { Default, High };

class DeviceStream {
 public:
  // On the current device.
  explicit DeviceStream(StreamPriority priority = StreamPriority::Default)
      // Thrust's temporaries from 4 KiB to 64 MiB are kept for reuse, up to 128 MiB in all: freeing one with
      // cudaFree, as Thrust's own allocator does, waits for every stream of the device.
      : cache_(2, 12, 26, std::size_t{128} << 20) {
    int least = 0, greatest = 0;
    CUDP_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUDP_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking,
                                                 priority == StreamPriority::High ? greatest : least));
  }
  ~DeviceStream() {
    cache_.FreeAllCached();
    cudaStreamDestroy(stream_);
  }
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;

  cudaStream_t get() const { return stream_; }

  // Thrust's execution policy for this stream with the cached temporaries, without the wait for the stream after
  // each algorithm (only those that hand a value back wait): a runner's sort queues its kernels back to back and
  // the host waits once, for the results, not once per kernel for a place beside another thread's long kernel.
  auto policy() { return thrust::cuda::par_nosync(allocator_).on(stream_); }

 private:
  // Thrust's allocator interface over the cache.
  struct Temporaries {
    using value_type = char;
    DeviceStream* owner;
    char* allocate(std::ptrdiff_t bytes) {
      void* p = nullptr;
      CUDP_CUDA_CHECK(owner->cache_.DeviceAllocate(&p, static_cast<std::size_t>(bytes), owner->stream_));
      return static_cast<char*>(p);
    }
    void deallocate(char* p, std::size_t) { CUDP_CUDA_CHECK(owner->cache_.DeviceFree(p)); }
  };

  cudaStream_t stream_{};
  cub::CachingDeviceAllocator cache_;
  Temporaries allocator_{this};
};

}  // namespace cudp::engine
