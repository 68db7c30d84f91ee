#pragma once
// Owning device allocation, grown on demand and never shrunk: the engine reuses buffers across queries.
// Growth frees the old allocation, and cudaFree waits for every stream of the device: a buffer that grows while
// another thread's long kernel runs (hmmsearch's next model in the MSV filter) waits for that kernel. A buffer
// used on one stream of its own grows in that stream's order instead (reserve(n, stream)), without waiting.
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
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), capacity_(std::exchange(o.capacity_, 0)), pooled_(o.pooled_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(capacity_, o.capacity_);
    std::swap(pooled_, o.pooled_);
    return *this;
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);  // a stream-ordered allocation too: cudaFree takes it after every stream's work
  }

  // At least n elements, usable at once on every stream.
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    release(nullptr);
    CUDP_CUDA_CHECK(cudaMalloc(&ptr_, (n ? n : 1) * sizeof(T)));
    capacity_ = n;
    pooled_ = false;
  }
  // At least n elements, grown in the order of `stream` (the device's memory pool, no wait for other streams): the
  // buffer's contents are then valid only on `stream`, or after work that waits for it. The legacy default stream
  // orders against every blocking stream, so it grows as reserve(n) does.
  void reserve(std::size_t n, cudaStream_t stream) {
    if (stream == nullptr || stream == cudaStreamLegacy) return reserve(n);
    if (n <= capacity_) return;
    release(stream);
    CUDP_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ptr_), (n ? n : 1) * sizeof(T), stream));
    capacity_ = n;
    pooled_ = true;
  }
  void upload(const T* host, std::size_t n, cudaStream_t stream = 0) {
    reserve(n);
    if (n) CUDP_CUDA_CHECK(cudaMemcpyAsync(ptr_, host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  void upload(const std::vector<T>& host, cudaStream_t stream = 0) { upload(host.data(), host.size(), stream); }
  // The same, the buffer growing in the order of `stream` (reserve(n, stream)): for a buffer of one stream.
  void upload_in_order(const std::vector<T>& host, cudaStream_t stream) {
    reserve(host.size(), stream);
    upload(host.data(), host.size(), stream);
  }
  void download(T* host, std::size_t n, cudaStream_t stream = 0) const {
    if (n) CUDP_CUDA_CHECK(cudaMemcpyAsync(host, ptr_, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }

  T* get() const { return ptr_; }
  std::size_t capacity() const { return capacity_; }

 private:
  // Frees the allocation: a pooled one in the order of `stream` when given, after the work queued on it.
  void release(cudaStream_t stream) {
    if (ptr_ != nullptr) {
      if (pooled_ && stream != nullptr) {
        CUDP_CUDA_CHECK(cudaFreeAsync(ptr_, stream));
      } else {
        CUDP_CUDA_CHECK(cudaFree(ptr_));
      }
    }
    ptr_ = nullptr;
    capacity_ = 0;
  }

  T* ptr_ = nullptr;
  std::size_t capacity_ = 0;
  bool pooled_ = false;  // from cudaMallocAsync
};

// Page-locked host memory, grown on demand and never shrunk: copies from the device into it run at the bus's speed,
// several times faster than into pageable memory, and kernels may read and write it in place (unified addressing).
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
  std::size_t capacity() const { return capacity_; }

 private:
  T* ptr_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace cudp::engine
