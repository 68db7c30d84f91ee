#pragma once
// Builds the TaskList storage the tiers read: targets taken Width at a time in the given order, their residues
// interleaved row by row, each task's stream padded to 16 bytes with the pad code.
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "../host/default_init_allocator.hpp"
#include "../host/host_cores.hpp"
#include "../tiers/task_list.hpp"
#include "sequences.hpp"

namespace cudp::engine {

template <int Width>
struct PackedTasks {
  std::vector<std::uint8_t, host::DefaultInitAllocator<std::uint8_t>> residues;  // the fill writes every byte
  std::vector<std::uint64_t> offsets, boundary_offsets;
  std::vector<std::int32_t> lengths, rows;
  std::vector<std::uint32_t> targets;
  std::uint64_t boundary_slots = 0;

  int count() const { return static_cast<int>(rows.size()); }
  tiers::TaskList<Width> view() const {
    return {residues.data(), offsets.data(), lengths.data(), rows.data(), targets.data(), boundary_offsets.data(), count()};
  }
};

// Lays out tasks for targets order[0..n) (indices into db; slot = the index itself) without copying residues.
template <int Width>
PackedTasks<Width> plan_tasks(const SequencesView& db, const std::uint32_t* order, std::size_t n) {
  PackedTasks<Width> out;
  std::size_t tasks = (n + Width - 1) / Width;
  out.offsets.resize(tasks);
  out.boundary_offsets.resize(tasks);
  out.rows.resize(tasks);
  out.lengths.assign(tasks * Width, 0);
  out.targets.assign(tasks * Width, tiers::kNoTarget);
  std::uint64_t bytes = 0, slots = 0;
  for (std::size_t t = 0; t < tasks; ++t) {
    int longest = 0;
    for (int k = 0; k < Width && t * Width + k < n; ++k) {
      std::uint32_t target = order[t * Width + k];
      int len = static_cast<int>(db.length(target));
      out.lengths[t * Width + k] = len;
      out.targets[t * Width + k] = target;
      longest = std::max(longest, len);
    }
    out.rows[t] = longest;
    out.offsets[t] = bytes;
    out.boundary_offsets[t] = slots;
    bytes += (static_cast<std::uint64_t>(longest) * Width + 15) / 16 * 16;
    slots += static_cast<std::uint64_t>(longest) + 1;
  }
  out.residues.resize(bytes);
  out.boundary_slots = slots;
  return out;
}

// Fills the interleaved residue streams of tasks [first, last) into `dest` (sized like out.residues), in parallel.
template <int Width>
void fill_task_residues(const SequencesView& db, const PackedTasks<Width>& plan, std::uint8_t* dest, std::uint8_t pad_code,
                        int threads = 0) {
  int tasks = plan.count();
  if (threads <= 0) threads = cudp::host::usable_cores();
  threads = std::max(1, std::min(threads, tasks / 256 + 1));
  auto fill = [&](int begin, int end) {
    for (int t = begin; t < end; ++t) {
      std::uint8_t* stream = dest + plan.offsets[t];
      std::uint64_t bytes = (t + 1 < tasks ? plan.offsets[t + 1] : plan.residues.size()) - plan.offsets[t];
      std::fill(stream, stream + bytes, pad_code);
      for (int k = 0; k < Width; ++k) {
        std::uint32_t target = plan.targets[t * Width + k];
        if (target == tiers::kNoTarget) continue;
        const std::uint8_t* src = db.data(target);
        int len = plan.lengths[t * Width + k];
        for (int i = 0; i < len; ++i) stream[static_cast<std::size_t>(i) * Width + k] = src[i];
      }
    }
  };
  if (threads == 1) return fill(0, tasks);
  std::vector<std::thread> pool;
  int per = (tasks + threads - 1) / threads;
  for (int w = 0; w < threads; ++w) pool.emplace_back(fill, std::min(tasks, w * per), std::min(tasks, (w + 1) * per));
  for (auto& th : pool) th.join();
}

template <int Width>
PackedTasks<Width> pack_tasks(const SequencesView& db, const std::uint32_t* order, std::size_t n, std::uint8_t pad_code) {
  PackedTasks<Width> out = plan_tasks<Width>(db, order, n);
  fill_task_residues(db, out, out.residues.data(), pad_code);
  return out;
}

}  // namespace cudp::engine
