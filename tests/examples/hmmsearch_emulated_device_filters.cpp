// A DeviceFilters that computes on the host with the reference filters (and the striped Forward policy on the host
// tier, which the GPU runs too), so that cudp-hmmsearch's GPU path (MSV for all targets, the pipeline's decisions,
// Viterbi and Forward for the listed targets, the parser rows fed to the workers beside them, the rest on host
// threads) is tested in builds without a GPU: it must give exactly the host path's results.
#include <atomic>
#include <stdexcept>

#include <cudp/hmmer/float_mode.hpp>
#include <cudp/hmmer/plan7_posterior.hpp>
#include <cudp/hmmer/striped_tables.hpp>
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
bool DeviceFilters::streamed() const { return false; }

std::vector<cudp::hmmer::FilterResult> DeviceFilters::msv(const cudp::hmmer::MsvFilterProfile& profile) {
  std::vector<cudp::hmmer::FilterResult> out;
  cudp::hmmer::MsvFilterProfile p = profile;
  for (std::size_t i = 0; i < impl_->db.count; ++i) {
    p.set_target_length(impl_->db.length(i));
    out.push_back(cudp::hmmer::msv_filter(p, impl_->db.data(i), impl_->db.length(i)));
  }
  return out;
}

std::vector<cudp::hmmer::FilterResult> DeviceFilters::viterbi(const cudp::hmmer::ViterbiFilterProfile& profile,
                                                              const std::vector<std::uint32_t>& targets) {
  std::vector<cudp::hmmer::FilterResult> out;
  cudp::hmmer::ViterbiFilterProfile p = profile;
  for (const std::uint32_t i : targets) {
    if (i >= impl_->db.count) throw std::out_of_range("DeviceFilters::viterbi: target index");
    p.set_target_length(impl_->db.length(i));
    out.push_back(cudp::hmmer::viterbi_filter(p, impl_->db.data(i), impl_->db.length(i)));
  }
  return out;
}

std::vector<float> DeviceFilters::forward(const cudp::hmmer::Plan7Profile& profile,
                                           const std::vector<std::uint32_t>& targets) {
  const auto tables = cudp::hmmer::stripe_forward(profile, cudp::hmmer::striped_shape_for(profile.M, 1, 1));
  const cudp::tiers::StripedTargets list{impl_->db.residues, impl_->db.offsets, targets.data(),
                                         static_cast<std::uint32_t>(targets.size())};
  std::vector<float> out;
  for (const auto& r : cudp::tiers::striped_rows_on_host<cudp::hmmer::Plan7Forward>(tables.host_model(), list, 1)) {
    out.push_back(r.nats);
  }
  return out;
}

std::atomic<std::uint64_t> emulated_parser_targets{0};

bool DeviceFilters::parsers(const cudp::hmmer::OddsTables& tables, const std::vector<std::uint32_t>& targets,
                            cudp::hmmer::ParserRowsBatch& rows) {
  cudp::hmmer::use_hmmer_float_mode();  // the device's arithmetic is HMMER's
  cudp::hmmer::StripedOddsProfile om(tables);
  cudp::hmmer::StripedMatrix fwd, bck;
  rows = {};
  for (const std::uint32_t id : targets) {
    const int L = static_cast<int>(impl_->db.length(id));
    if (L == 0) throw std::invalid_argument("DeviceFilters::parsers: a target of length 0");
    om.set_mode(true, L);
    cudp::hmmer::striped_forward(om, impl_->db.data(id), L, fwd, false);
    cudp::hmmer::striped_backward(om, impl_->db.data(id), L, fwd, bck, false);
    rows.first_row.push_back(rows.forward.size() / cudp::hmmer::kSpecialCount);
    rows.forward.insert(rows.forward.end(), fwd.specials.begin(), fwd.specials.end());
    rows.backward.insert(rows.backward.end(), bck.specials.begin(), bck.specials.end());
    rows.backward_own_scales.push_back(bck.has_own_scales ? 1 : 0);
  }
  emulated_parser_targets += targets.size();
  return true;
}

double DeviceFilters::kernel_seconds() const { return 0.0; }

}  // namespace hmmsearch
