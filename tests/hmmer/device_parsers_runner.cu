#include "device_parsers_runner.hpp"

#include <chrono>
#include <thread>

#include "cudp/hmmer/device_parsers.cuh"

namespace cudp::test {

hmmer::ParserRowsBatch run_device_parsers(const hmmer::OddsTables& tables,
                                          const std::vector<const std::uint8_t*>& residues,
                                          const std::vector<std::uint32_t>& lengths, std::uint64_t room_bytes) {
  hmmer::DevicePlan7Parsers parsers(room_bytes);
  parsers.set_model(tables);
  hmmer::ParserRowsBatch rows;
  parsers.run(residues, lengths, rows);
  return rows;
}

hmmer::ParserRowsBatch run_device_full_passes(const hmmer::OddsTables& tables,
                                              const std::vector<const std::uint8_t*>& residues,
                                              const std::vector<std::uint32_t>& lengths,
                                              const std::vector<hmmer::OddsSpecials>& length_models,
                                              std::uint64_t room_bytes, hmmer::ParserCellsBatch& cells) {
  hmmer::DevicePlan7Parsers parsers(room_bytes);
  parsers.set_model(tables);
  hmmer::ParserRowsBatch rows;
  parsers.run(residues, lengths, rows, cudaStreamPerThread, &cells, &length_models);
  return rows;
}

hmmer::ParserRowsBatch run_device_parsers_called_off(const hmmer::OddsTables& tables,
                                                     const std::vector<const std::uint8_t*>& residues,
                                                     const std::vector<std::uint32_t>& lengths, int delay_ms) {
  void* flag = nullptr;
  CUDP_CUDA_CHECK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
  volatile int* off = static_cast<int*>(flag);
  *off = delay_ms == 0 ? 1 : 0;
  hmmer::DevicePlan7Parsers parsers(std::uint64_t{512} << 20);
  parsers.set_model(tables);
  std::thread caller([&] {
    if (delay_ms == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    *off = 1;
  });
  hmmer::ParserRowsBatch rows;
  parsers.run(residues, lengths, rows, cudaStreamPerThread, nullptr, nullptr, off);
  caller.join();
  CUDP_CUDA_CHECK(cudaFreeHost(flag));
  return rows;
}

}  // namespace cudp::test
