#pragma once
// std::allocator without the value-initialisation of resize(), for buffers that host threads fill next: a buffer
// of hundreds of megabytes sized on one thread and filled by parallel_for's workers, each faulting in its own
// pages, instead of one thread zero-filling (and faulting) all of it first. That zeroing took most of the load time
// of a 200 MB database, and a gigabyte of packed tasks was zeroed on one thread before every core wrote it again.
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace cudp::host {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

}  // namespace cudp::host
