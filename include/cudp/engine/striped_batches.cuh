#pragma once
// A host database larger than the GPU memory, streamed through two DeviceStripedDatabase slots for the striped
// filters. The targets of a list (ascending ids) are cut into batches of at most `slot_bytes` (residues plus
// `per_target_bytes` for each target's offsets, ids and results). While the kernels of batch b read one slot, a
// worker thread copies batch b+1 into the other on a copy stream of its own, so the copies overlap the filters. The
// database's residues are page-locked where they lie (cudaHostRegister), so that a batch of consecutive targets
// (every batch of a pass over the whole database) goes to the GPU straight from them at the bus's speed; a batch of
// scattered targets (the survivors of a filter) is first gathered into page-locked memory. A slot holds a database
// of its batch alone: the kernels see ids 0..n-1, and the body learns where the batch starts in the list.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "device_striped.cuh"
#include "sequences.hpp"

namespace cudp::engine {

class StripedBatchStream {
 public:
  // A target of n residues takes n + per_target_bytes of a slot; a slot must hold the longest target.
  StripedBatchStream(const SequencesView& db, std::uint64_t slot_bytes, std::uint64_t per_target_bytes)
      : db_(db), slot_bytes_(slot_bytes), per_target_bytes_(per_target_bytes) {
    std::uint64_t longest = 0;
    for (std::size_t i = 0; i < db.count; ++i) longest = std::max<std::uint64_t>(longest, db.length(i));
    if (longest + per_target_bytes > slot_bytes)
      throw std::invalid_argument("StripedBatchStream: a slot of " + std::to_string(slot_bytes) +
                                  " bytes cannot hold a target of " + std::to_string(longest) + " residues");
    // Sized once: a cudaFree while the other slot's kernels run would wait for them.
    const std::uint64_t most_targets = std::min<std::uint64_t>(db.count, slot_bytes / (per_target_bytes + 1) + 1);
    const std::uint64_t residues = db.count ? db.offsets[db.count] : 0;
    for (DeviceStripedDatabase& slot : slots_) {
      slot.reserve(static_cast<std::size_t>(std::min(residues, slot_bytes)), static_cast<std::size_t>(most_targets));
    }
    for (Staged& st : staged_) st.offsets.reserve(static_cast<std::size_t>(most_targets + 1));
    // Without the lock (a system that refuses it) every batch is gathered into page-locked memory instead.
    registered_ = residues > 0 && cudaHostRegister(const_cast<std::uint8_t*>(db.residues), residues,
                                                   cudaHostRegisterDefault) == cudaSuccess;
    if (!registered_) cudaGetLastError();  // clears the refusal
    CUDP_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
  }
  ~StripedBatchStream() {
    cudaStreamDestroy(copy_stream_);
    if (registered_) cudaHostUnregister(const_cast<std::uint8_t*>(db_.residues));
  }
  StripedBatchStream(const StripedBatchStream&) = delete;
  StripedBatchStream& operator=(const StripedBatchStream&) = delete;

  // The slots, for the filters that read them (bind one filter set to each).
  const DeviceStripedDatabase& slot(int s) const { return slots_[s]; }

  // body(slot, batch, local_ids, first) for each batch of `ids` in order: `batch` is the batch on the host (the
  // database the slot holds), `local_ids` are 0..n-1 and `first` is the position of the batch's first target in
  // `ids`. The body must be done with the slot when it returns.
  template <class Body>
  void for_each_batch(const std::vector<std::uint32_t>& ids, Body&& body) {
    const std::vector<std::size_t> starts = cut(ids);
    batches_ = starts.size() - 1;
    if (batches_ == 0) return;
    stage(ids, starts[0], starts[1], 0);
    for (std::size_t b = 0; b < batches_; ++b) {
      std::exception_ptr staging_error;
      std::thread next;
      if (b + 1 < batches_) {
        next = std::thread([&, b] {
          try {
            stage(ids, starts[b + 1], starts[b + 2], static_cast<int>((b + 1) % 2));
          } catch (...) {
            staging_error = std::current_exception();
          }
        });
      }
      const int s = static_cast<int>(b % 2);
      try {
        body(slots_[s], staged_[s].view, local_ids(starts[b + 1] - starts[b]), starts[b]);
      } catch (...) {
        if (next.joinable()) next.join();
        throw;
      }
      if (next.joinable()) next.join();
      if (staging_error) std::rethrow_exception(staging_error);
    }
  }
  std::size_t last_batches() const { return batches_; }  // batches of the last for_each_batch

 private:
  struct Staged {
    PinnedBuffer<std::uint8_t> residues;
    PinnedBuffer<std::uint64_t> offsets;
    SequencesView view;
  };

  // Batch boundaries: positions in ids, first 0, last ids.size().
  std::vector<std::size_t> cut(const std::vector<std::uint32_t>& ids) const {
    std::vector<std::size_t> starts{0};
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::uint64_t need = db_.length(ids[i]) + per_target_bytes_;
      if (bytes + need > slot_bytes_ && i > starts.back()) {
        starts.push_back(i);
        bytes = 0;
      }
      bytes += need;
    }
    if (!ids.empty()) starts.push_back(ids.size());
    return starts;
  }

  // Loads slot s with ids[begin, end): straight from the database when they are consecutive and it is page-locked,
  // else gathered into staged_[s] (one copy per run of consecutive ids).
  void stage(const std::vector<std::uint32_t>& ids, std::size_t begin, std::size_t end, int s) {
    Staged& st = staged_[s];
    std::uint64_t* offsets = st.offsets.data();
    const std::size_t n = end - begin;
    if (registered_ && ids[end - 1] - ids[begin] == n - 1) {
      const std::uint64_t base = db_.offsets[ids[begin]];
      for (std::size_t k = 0; k <= n; ++k) offsets[k] = db_.offsets[ids[begin] + k] - base;
      st.view = {db_.residues + base, offsets, n};
    } else {
      std::uint64_t bytes = 0;
      for (std::size_t i = begin; i < end; ++i) bytes += db_.length(ids[i]);
      st.residues.reserve(static_cast<std::size_t>(bytes));
      std::uint8_t* residues = st.residues.data();
      offsets[0] = 0;
      for (std::size_t i = begin; i < end;) {
        std::size_t j = i + 1;
        while (j < end && ids[j] == ids[j - 1] + 1) ++j;
        const std::uint64_t from = db_.offsets[ids[i]], to = db_.offsets[ids[j - 1] + 1];
        std::memcpy(residues + offsets[i - begin], db_.residues + from, static_cast<std::size_t>(to - from));
        for (std::size_t k = i; k < j; ++k) offsets[k - begin + 1] = offsets[k - begin] + db_.length(ids[k]);
        i = j;
      }
      st.view = {residues, offsets, n};
    }
    slots_[s].load(st.view, copy_stream_);
    CUDP_CUDA_CHECK(cudaStreamSynchronize(copy_stream_));
  }

  const std::vector<std::uint32_t>& local_ids(std::size_t n) {
    if (local_.size() != n) {
      local_.resize(n);
      for (std::size_t i = 0; i < n; ++i) local_[i] = static_cast<std::uint32_t>(i);
    }
    return local_;
  }

  SequencesView db_;
  std::uint64_t slot_bytes_, per_target_bytes_;
  DeviceStripedDatabase slots_[2];
  Staged staged_[2];
  std::vector<std::uint32_t> local_;
  cudaStream_t copy_stream_{};
  bool registered_ = false;
  std::size_t batches_ = 0;
};

}  // namespace cudp::engine
