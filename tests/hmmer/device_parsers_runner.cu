#include "device_parsers_runner.hpp"

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

}  // namespace cudp::test
