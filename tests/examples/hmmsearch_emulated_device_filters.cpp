// A DeviceFilters that computes on the host with the reference filters, so that cudp-hmmsearch's GPU path (MSV for
// all targets, the pipeline's decisions, Viterbi for the listed targets, the rest on host threads) is tested in
// builds without a GPU: it must give exactly the host path's results.
#include <stdexcept>

#include "device_filters.hpp"

namespace hmmsearch {

bool cuda_available() { return true; }

struct DeviceFilters::Impl {
  cudp::engine::SequencesView db;
};

DeviceFilters::DeviceFilters(const cudp::engine::SequencesView& db) : impl_(new Impl{db}) {}
DeviceFilters::~DeviceFilters() = default;

std::string DeviceFilters::device_name() const { return "emulated on the host"; }

std::vector<cudp::bio::FilterResult> DeviceFilters::msv(const cudp::bio::MsvFilterProfile& profile) {
  std::vector<cudp::bio::FilterResult> out;
  cudp::bio::MsvFilterProfile p = profile;
  for (std::size_t i = 0; i < impl_->db.count; ++i) {
    p.set_target_length(impl_->db.length(i));
    out.push_back(cudp::bio::msv_filter(p, impl_->db.data(i), impl_->db.length(i)));
  }
  return out;
}

std::vector<cudp::bio::FilterResult> DeviceFilters::viterbi(const cudp::bio::ViterbiFilterProfile& profile,
                                                            const std::vector<std::uint32_t>& targets) {
  std::vector<cudp::bio::FilterResult> out;
  cudp::bio::ViterbiFilterProfile p = profile;
  for (const std::uint32_t i : targets) {
    if (i >= impl_->db.count) throw std::out_of_range("DeviceFilters::viterbi: target index");
    p.set_target_length(impl_->db.length(i));
    out.push_back(cudp::bio::viterbi_filter(p, impl_->db.data(i), impl_->db.length(i)));
  }
  return out;
}

double DeviceFilters::kernel_seconds() const { return 0.0; }

}  // namespace hmmsearch
