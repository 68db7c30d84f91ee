#pragma once
// std::allocator on cache-line boundaries, for arrays that host vector lanes read and write: malloc returns 16-byte
// alignment, and a large block (mmap'd) starts 16 bytes into a page, so that every other 32-byte vector of it
// straddles two cache lines.
#include <cstddef>
#include <memory>
#include <new>

namespace cudp::host {

template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::size_t alignment = 64;

  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{alignment}));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t{alignment}); }

  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const noexcept {
    return false;
  }
};

}  // namespace cudp::host
