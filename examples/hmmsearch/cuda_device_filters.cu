// hmmsearch's MSV and Viterbi filters on the GPU (cudp::hmmer::DeviceMsvFilter / DeviceViterbiFilter), with the
// host backend's filters (HostFilters: the same policies in SSE2 words, the scalar reference without SSE2) taking
// what the device cannot score exactly: models larger than every compiled shape, and Viterbi-filter targets or
// models outside the 16-bit words' exact range.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <cudp/hmmer/device_filters.cuh>
#include <cudp/tiers/parallel_for.hpp>

#include "device_filters.hpp"
#include "host_filters.hpp"
#include "stage_times.hpp"

namespace hmmsearch {

bool cuda_available() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

bool start_cuda() { return cuda_available() && cudaFree(nullptr) == cudaSuccess; }

bool device_fits(const cudp::engine::SequencesView& db, std::string& why) {
  // Each filter keeps a few ids, lengths and results per target, plus the sort's scratch space: well under 256
  // bytes per target together. The fixed part covers the models' tables and the runtime's own allocations.
  constexpr std::uint64_t per_target = 256, fixed = std::uint64_t{256} << 20;
  const std::uint64_t residues = db.count ? db.offsets[db.count] : 0;
  const std::uint64_t needed = residues + (db.count + 1) * sizeof(std::uint64_t) + db.count * per_target + fixed;
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    why = "cannot read the GPU's free memory";
    return false;
  }
  std::uint64_t usable = free_bytes;
  if (const char* cap = std::getenv("CUDP_GPU_MEMORY_MB"); cap && *cap)
    usable = std::min<std::uint64_t>(usable, std::strtoull(cap, nullptr, 10) << 20);
  if (needed <= usable) return true;
  auto mib = [](std::uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; };
  why = "the database needs about " + mib(needed) + " of GPU memory and " + mib(usable) + " are available";
  return false;
}

struct DeviceFilters::Impl {
  explicit Impl(const cudp::engine::SequencesView& view)
      : db(view), device_db(view), msv(device_db), viterbi(device_db), forward(device_db), host(view, 0) {
    all.resize(view.count);
    for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  }
  cudp::engine::SequencesView db;
  cudp::engine::DeviceStripedDatabase device_db;
  cudp::hmmer::DeviceMsvFilter<cudp::lanes::s16x2> msv;
  cudp::hmmer::DeviceViterbiFilter<> viterbi;
  cudp::hmmer::DeviceForwardFilter<> forward;
  HostFilters host;
  std::vector<std::uint32_t> all;
};

DeviceFilters::DeviceFilters(const cudp::engine::SequencesView& db) : impl_(std::make_unique<Impl>(db)) {}
DeviceFilters::~DeviceFilters() = default;

std::string DeviceFilters::device_name() const {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "GPU";
  return prop.name;
}

std::vector<cudp::hmmer::FilterResult> DeviceFilters::msv(const cudp::hmmer::MsvFilterProfile& profile) {
  if (impl_->msv.fits(profile.M)) {
    auto out = impl_->msv.scores(profile, impl_->all);
    StageTimes::global().add_seconds("  msv kernel", impl_->msv.last_kernel_ms() / 1e3);
    return out;
  }
#if CUDP_HAS_SSE_LANES
  return impl_->host.msv(profile);
#else
  std::vector<cudp::hmmer::FilterResult> out(impl_->all.size());
  cudp::tiers::parallel_for(
      out.size(), 0, [&] { return profile; },
      [&](cudp::hmmer::MsvFilterProfile& p, std::size_t i) {
        p.set_target_length(impl_->db.length(i));
        out[i] = cudp::hmmer::msv_filter(p, impl_->db.data(i), impl_->db.length(i));
      });
  return out;
#endif
}

std::vector<cudp::hmmer::FilterResult> DeviceFilters::viterbi(const cudp::hmmer::ViterbiFilterProfile& profile,
                                                              const std::vector<std::uint32_t>& targets) {
  std::vector<std::uint32_t> on_host;
  std::vector<cudp::hmmer::FilterResult> out = impl_->viterbi.scores(profile, targets, impl_->db, on_host);
  StageTimes::global().add_seconds("  viterbi kernel", impl_->viterbi.last_kernel_ms() / 1e3);
  if (on_host.empty()) return out;
  const auto host_start = StageTimes::clock::now();
  std::vector<std::size_t> positions;
  for (std::size_t i = 0, h = 0; i < targets.size() && h < on_host.size(); ++i) {
    if (targets[i] == on_host[h]) {
      positions.push_back(i);
      ++h;
    }
  }
#if CUDP_HAS_SSE_LANES
  const std::vector<cudp::hmmer::FilterResult> scored = impl_->host.viterbi(profile, on_host);
  for (std::size_t n = 0; n < positions.size(); ++n) out[positions[n]] = scored[n];
#else
  cudp::tiers::parallel_for(
      positions.size(), 0, [&] { return profile; },
      [&](cudp::hmmer::ViterbiFilterProfile& p, std::size_t n) {
        const std::uint32_t id = targets[positions[n]];
        p.set_target_length(impl_->db.length(id));
        out[positions[n]] = cudp::hmmer::viterbi_filter(p, impl_->db.data(id), impl_->db.length(id));
      });
#endif
  StageTimes::global().add("  viterbi on host", host_start);
  return out;
}

std::vector<float> DeviceFilters::forward(const cudp::hmmer::Plan7Profile& profile,
                                           const std::vector<std::uint32_t>& targets) {
  if (!impl_->forward.fits(profile.M)) return {};
  return impl_->forward.scores(profile, targets);
}

double DeviceFilters::kernel_seconds() const {
  return (impl_->msv.kernel_ms() + impl_->viterbi.kernel_ms() + impl_->forward.kernel_ms()) / 1e3;
}

}  // namespace hmmsearch
