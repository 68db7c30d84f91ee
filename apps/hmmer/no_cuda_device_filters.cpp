// Built when CUDP_ENABLE_CUDA is OFF: cudp-hmmsearch still runs, on the host backend only.
#include <stdexcept>

#include "device_filters.hpp"
#include "kit/gpu_choice.hpp"

namespace hmmsearch {

bool cuda_available() { return false; }
int cuda_device_count() { return 0; }
std::vector<int> start_cuda(int gpus, int process_on_node, int processes) {
  return cudp::apps::choose_gpus(gpus, 0, process_on_node, processes);  // an error when --gpus asked for some
}
bool device_fits(const cudp::engine::SequencesView&, std::string& why, int) {
  why = "no CUDA backend in this build";
  return false;
}

struct DeviceFilters::Impl {};

DeviceFilters::DeviceFilters(const cudp::engine::SequencesView&, int) {
  throw std::runtime_error("no CUDA backend in this build of cudp-hmmsearch (configured with CUDP_ENABLE_CUDA=OFF); "
                           "use --backend host");
}
DeviceFilters::~DeviceFilters() = default;

std::string DeviceFilters::device_name() const { return "none"; }
bool DeviceFilters::streamed() const { return false; }

cudp::hmmer::FilterSurvivors DeviceFilters::msv(const MsvRequest&) {
  throw std::runtime_error("no CUDA backend in this build of cudp-hmmsearch");
}

std::vector<cudp::hmmer::FilterSurvivors> DeviceFilters::msv(const std::vector<MsvRequest>&) {
  throw std::runtime_error("no CUDA backend in this build of cudp-hmmsearch");
}

std::vector<cudp::hmmer::BiasSum> DeviceFilters::bias(const cudp::hmmer::BiasModel&,
                                                       const std::vector<std::uint32_t>&) {
  throw std::runtime_error("no CUDA backend in this build of cudp-hmmsearch");
}

std::vector<cudp::hmmer::FilterResult> DeviceFilters::viterbi(const cudp::hmmer::ViterbiFilterProfile&,
                                                              const std::vector<std::uint32_t>&) {
  throw std::runtime_error("no CUDA backend in this build of cudp-hmmsearch");
}

std::vector<float> DeviceFilters::forward(const cudp::hmmer::Plan7Profile&, const std::vector<std::uint32_t>&) {
  throw std::runtime_error("no CUDA backend in this build of cudp-hmmsearch");
}

bool DeviceFilters::parsers(const cudp::hmmer::OddsTables&, const std::vector<std::uint32_t>&,
                            cudp::hmmer::ParserRowsBatch&) {
  throw std::runtime_error("no CUDA backend in this build of cudp-hmmsearch");
}

std::size_t DeviceFilters::parsers_at_once(const cudp::hmmer::OddsTables&) { return 0; }

void DeviceFilters::call_off_parsers(bool) {}

bool DeviceFilters::envelopes(const cudp::hmmer::OddsTables&, const std::vector<cudp::hmmer::EnvelopeRequest>&, bool,
                              cudp::hmmer::EnvelopeBatch&) {
  return false;
}

double DeviceFilters::kernel_seconds() const { return 0.0; }

}  // namespace hmmsearch
