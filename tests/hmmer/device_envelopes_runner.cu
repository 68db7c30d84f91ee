#include "device_envelopes_runner.hpp"

#include "cudp/hmmer/device_envelopes.cuh"

namespace cudp::test {

hmmer::EnvelopeBatch run_device_envelopes(const hmmer::OddsTables& tables,
                                          const std::vector<hmmer::EnvelopeRequest>& requests, bool columns,
                                          std::uint64_t room_bytes) {
  hmmer::DeviceEnvelopeRescorer rescorer(room_bytes);
  rescorer.set_model(tables);
  hmmer::EnvelopeBatch batch;
  rescorer.run(requests, columns, batch);
  return batch;
}

}  // namespace cudp::test
