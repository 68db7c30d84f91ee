// A DeviceFilters that computes on the host with the reference filters (and the striped Forward policy on the host
// tier, which the GPU runs too), so that cudp-hmmsearch's GPU path (MSV for all targets, the pipeline's decisions,
// Viterbi and Forward for the listed targets, the rest on host threads) is tested in builds without a GPU: it must
// give exactly the host path's results.
#include <stdexcept>

#include <cudp/engine/plan7_striped_tables.hpp>
#include <cudp/tiers/striped_rows_host.hpp>

#include "device_filters.hpp"

namespace hmmsearch {

bool cuda_available() { return true; }
bool start_cuda() { return true; }

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

std::vector<float> DeviceFilters::forward(const cudp::bio::Plan7Profile& profile,
                                           const std::vector<std::uint32_t>& targets) {
  const auto tables = cudp::engine::stripe_forward(profile, cudp::engine::striped_shape_for(profile.M, 1, 1));
  const cudp::tiers::StripedTargets list{impl_->db.residues, impl_->db.offsets, targets.data(),
                                         static_cast<std::uint32_t>(targets.size())};
  std::vector<float> out;
  for (const auto& r : cudp::tiers::striped_rows_on_host<cudp::recurrences::Plan7Forward>(tables.host_model(), list, 1)) {
    out.push_back(r.nats);
  }
  return out;
}

double DeviceFilters::kernel_seconds() const { return 0.0; }

}  // namespace hmmsearch
