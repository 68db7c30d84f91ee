#pragma once
// A PackedTasks list mirrored in device memory.
#include <cstdint>

#include "../tiers/task_list.hpp"
#include "device_buffer.cuh"
#include "task_packing.hpp"

namespace cudp::engine {

template <int Width>
struct DeviceTasks {
  DeviceBuffer<std::uint8_t> residues;
  DeviceBuffer<std::uint64_t> offsets, boundary_offsets;
  DeviceBuffer<std::int32_t> lengths, rows;
  DeviceBuffer<std::uint32_t> targets;
  int count = 0;
  std::uint64_t boundary_slots = 0, residue_bytes = 0;

  void upload(const PackedTasks<Width>& host, cudaStream_t stream = 0) {
    residues.upload(host.residues.data(), host.residues.size(), stream);
    offsets.upload(host.offsets, stream);
    boundary_offsets.upload(host.boundary_offsets, stream);
    lengths.upload(host.lengths, stream);
    rows.upload(host.rows, stream);
    targets.upload(host.targets, stream);
    count = host.count();
    boundary_slots = host.boundary_slots;
    residue_bytes = host.residues.size();
  }
  tiers::TaskList<Width> view() const {
    return {residues.get(), offsets.get(), lengths.get(), rows.get(), targets.get(), boundary_offsets.get(), count};
  }
};

}  // namespace cudp::engine
