#include "device_envelopes_runner.hpp"

#include "cudp/hmmer/device_envelopes.cuh"

namespace cudp::test {

hmmer::EnvelopeBatch run_device_envelopes(const hmmer::OddsTables& tables,
                                          const std::vector<hmmer::EnvelopeRequest>& requests, bool columns,
                                          std::uint64_t room_bytes, double* passes_seconds, double* sweep_seconds) {
  hmmer::DeviceEnvelopeRescorer rescorer(room_bytes);
  rescorer.set_model(tables);
  hmmer::EnvelopeBatch batch;
  rescorer.run(requests, columns, batch);
  if (passes_seconds != nullptr) *passes_seconds = rescorer.passes_seconds();
  if (sweep_seconds != nullptr) *sweep_seconds = rescorer.sweep_seconds();
  return batch;
}

}  // namespace cudp::test
