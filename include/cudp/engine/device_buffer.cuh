#pragma once
// Owning device allocation, grown on demand and never shrunk: the engine reuses buffers across queries.
#include <cstddef>
#include <utility>
#include <vector>

#include "cuda_check.cuh"

namespace cudp::engine {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { reserve(n); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), capacity_(std::exchange(o.capacity_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(capacity_, o.capacity_);
    return *this;
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }

  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    if (ptr_) CUDP_CUDA_CHECK(cudaFree(ptr_));
    ptr_ = nullptr;
    capacity_ = 0;
    CUDP_CUDA_CHECK(cudaMalloc(&ptr_, (n ? n : 1) * sizeof(T)));
    capacity_ = n;
  }
  void upload(const T* host, std::size_t n, cudaStream_t stream = 0) {
    reserve(n);
    if (n) CUDP_CUDA_CHECK(cudaMemcpyAsync(ptr_, host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  void upload(const std::vector<T>& host, cudaStream_t stream = 0) { upload(host.data(), host.size(), stream); }
  void download(T* host, std::size_t n, cudaStream_t stream = 0) const {
    if (n) CUDP_CUDA_CHECK(cudaMemcpyAsync(host, ptr_, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }

  T* get() const { return ptr_; }
  std::size_t capacity() const { return capacity_; }

 private:
  T* ptr_ = nullptr;
  std::size_t capacity_ = 0;
};

// Page-locked host memory, grown on demand and never shrunk: copies from the device into it run at the bus's speed,
// several times faster than into pageable memory.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    if (ptr_) CUDP_CUDA_CHECK(cudaFreeHost(ptr_));
    ptr_ = nullptr;
    capacity_ = 0;
    CUDP_CUDA_CHECK(cudaMallocHost(&ptr_, (n ? n : 1) * sizeof(T)));
    capacity_ = n;
  }
  T* data() const { return ptr_; }

 private:
  T* ptr_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace cudp::engine
