// hmmsearch's MSV and Viterbi filters on the GPU (cudp::hmmer::DeviceMsvFilter / DeviceViterbiFilter), with the
// host backend's filters (HostFilters: the same policies in SSE2 words, the scalar reference without SSE2) taking
// what the device cannot score exactly: models larger than every compiled shape, and Viterbi-filter targets or
// models outside the 16-bit words' exact range.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <cudp/engine/device_contexts.cuh>
#include <cudp/engine/striped_batches.cuh>
#include <cudp/hmmer/device_bias_filter.cuh>
#include <cudp/hmmer/device_filters.cuh>
#include <cudp/hmmer/device_envelopes.cuh>
#include <cudp/hmmer/device_parsers.cuh>
#include <cudp/host/parallel_for.hpp>

#include "device_filters.hpp"
#include "kit/gpu_choice.hpp"
#include "host_filters.hpp"
#include "stage_times.hpp"

namespace hmmsearch {

bool cuda_available() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

namespace {

// The device of this process when none is named: the first that start_cuda chose. The runtime's current device is
// per thread and the filters are driven from several threads (the host workers' producers, cudp-hmmscan's
// workers), so each entry point makes the calling thread use its filters' device.
std::atomic<int> process_device{0};
int use_device(int device = -1) {
  if (device < 0) device = process_device.load();
  CUDP_CUDA_CHECK(cudaSetDevice(device));
  return device;
}

}  // namespace

int cuda_device_count() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess ? devices : 0;
}

std::vector<int> start_cuda(int gpus, int process_on_node, int processes) {
  const std::vector<int> devices =
      cudp::apps::choose_gpus(gpus, cuda_device_count(), process_on_node, processes);
  if (devices.empty()) return {};
  process_device = devices.front();
  try {
    cudp::engine::start_contexts(devices);
  } catch (const cudp::engine::CudaError&) {
    return {};
  }
  CUDP_CUDA_CHECK(cudaSetDevice(devices.front()));
  return devices;
}

namespace {

// Each target takes its residues, an offset, and a few ids, lengths and results in each filter plus the sort's
// scratch space: well under 256 bytes beside its residues. The fixed part covers the models' tables and the
// runtime's own allocations.
constexpr std::uint64_t kPerTarget = 256 + sizeof(std::uint64_t), kFixed = std::uint64_t{256} << 20;

// Where the database goes in the GPU memory cudp-hmmsearch may use (all that is free, or CUDP_GPU_MEMORY_MB
// mebibytes): resident when it fits, else streamed through two slots of half the room each; `why` when neither.
struct Placement {
  bool usable = false, streamed = false;
  std::uint64_t slot_bytes = 0;
  std::string why;
};

// The GPU memory cudp-hmmsearch may use now: what is free, or CUDP_GPU_MEMORY_MB mebibytes of it when that is set;
// nothing when the free memory cannot be read.
std::optional<std::uint64_t> usable_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return std::nullopt;
  std::uint64_t usable = free_bytes;
  if (const char* cap = std::getenv("CUDP_GPU_MEMORY_MB"); cap && *cap)
    usable = std::min<std::uint64_t>(usable, std::strtoull(cap, nullptr, 10) << 20);
  return usable;
}

Placement place(const cudp::engine::SequencesView& db) {
  Placement p;
  std::uint64_t residues = db.count ? db.offsets[db.count] : 0, longest = 0;
  for (std::size_t i = 0; i < db.count; ++i) longest = std::max<std::uint64_t>(longest, db.length(i));
  const std::optional<std::uint64_t> free = usable_memory();
  if (!free) {
    p.why = "cannot read the GPU's free memory";
    return p;
  }
  const std::uint64_t usable = *free;
  const std::uint64_t room = usable > kFixed ? usable - kFixed : 0;
  if (residues + db.count * kPerTarget <= room) {
    p.usable = true;
    return p;
  }
  // Streamed: each slot must hold the longest target (with room to spare, or the batches are tiny).
  const std::uint64_t least = kFixed + 2 * 16 * (longest + kPerTarget);
  if (usable < least) {
    auto mib = [](std::uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; };
    p.why = "the database needs about " + mib(least) + " of GPU memory and " + mib(usable) + " are available";
    return p;
  }
  p.usable = p.streamed = true;
  p.slot_bytes = room / 2;
  return p;
}

}  // namespace

bool device_fits(const cudp::engine::SequencesView& db, std::string& why, int device) {
  use_device(device);
  Placement p = place(db);
  why = p.why;
  return p.usable;
}

// One set of filters reading one device database: the resident one, or a slot of the streamed one. The MSV filter
// of the next model runs over the whole database while the current model's Viterbi and Forward filters wait on the
// host for their few thousand targets: theirs go first (device_stream.cuh).
struct FilterSet {
  explicit FilterSet(const cudp::engine::DeviceStripedDatabase& db)
      : msv(db),
        bias(db),
        viterbi(db, cudp::engine::StreamPriority::High),
        forward(db, cudp::engine::StreamPriority::High) {}
  cudp::hmmer::DeviceMsvFilter<cudp::lanes::s16x2> msv;
  cudp::hmmer::DeviceBiasFilter bias;
  cudp::hmmer::DeviceViterbiFilter<> viterbi;
  cudp::hmmer::DeviceForwardFilter<> forward;
};

struct DeviceFilters::Impl {
  Impl(const cudp::engine::SequencesView& view, int requested)
      : device(use_device(requested)), db(view), host(view, 0), codes_in_db(cudp::hmmer::codes_present(view)) {
    all.resize(view.count);
    for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
    const Placement p = place(view);
    if (!p.usable) throw std::runtime_error(p.why);
    if (p.streamed) {
      stream = std::make_unique<cudp::engine::StripedBatchStream>(view, p.slot_bytes, kPerTarget);
      for (int s = 0; s < 2; ++s) sets.push_back(std::make_unique<FilterSet>(stream->slot(s)));
    } else {
      resident = std::make_unique<cudp::engine::DeviceStripedDatabase>(view);
      sets.push_back(std::make_unique<FilterSet>(*resident));
    }
    // The uploads ran on this thread's default stream; another thread may be the one that launches the kernels.
    CUDP_CUDA_CHECK(cudaDeviceSynchronize());
  }

  // body(filters, batch database on the host, ids in the batch, position of the batch's first id in `ids`) over
  // the batches of `ids` (ascending); one batch of the whole database when it is resident.
  template <class Body>
  void each_batch(const std::vector<std::uint32_t>& ids, Body body) {
    if (!stream) {
      body(*sets[0], db, ids, std::size_t{0});
      return;
    }
    stream->for_each_batch(ids, [&](const cudp::engine::DeviceStripedDatabase& slot,
                                    const cudp::engine::SequencesView& batch, const std::vector<std::uint32_t>& local,
                                    std::size_t first) {
      body(*sets[&slot == &stream->slot(0) ? 0 : 1], batch, local, first);
    });
  }

  // The calling thread's device made this one (see use_device).
  void use() const { CUDP_CUDA_CHECK(cudaSetDevice(device)); }
  std::vector<cudp::hmmer::FilterResult> host_msv(const cudp::hmmer::MsvFilterProfile& profile);

  int device;  // first: every other member is made on it
  cudp::engine::SequencesView db;
  std::unique_ptr<cudp::engine::DeviceStripedDatabase> resident;
  std::unique_ptr<cudp::engine::StripedBatchStream> stream;
  std::vector<std::unique_ptr<FilterSet>> sets;
  HostFilters host;
  std::uint64_t codes_in_db;  // the residue codes the database holds (cudp::hmmer::codes_present)
  std::vector<std::uint32_t> all;
  cudp::hmmer::DevicePlan7Parsers parsers;
  std::unique_ptr<cudp::hmmer::DeviceEnvelopeRescorer> rescorer;  // made at the first call, with what is free then
  // The parsers' and the envelopes' streams: ahead of the next model's MSV filter, whose blocks would otherwise
  // hold the GPU while the host's workers, and a call-off of the parsers, wait for their kernels.
  cudp::engine::DeviceStream parser_stream{cudp::engine::StreamPriority::High};
  cudp::engine::DeviceStream envelope_stream{cudp::engine::StreamPriority::High};

  // The flag the parser kernel reads to stop early: page-locked, so the kernel sees the host's writes.
  volatile int* parsers_called_off() {
    if (called_off == nullptr) {
      void* p = nullptr;
      CUDP_CUDA_CHECK(cudaHostAlloc(&p, sizeof(int), cudaHostAllocMapped));
      called_off.reset(static_cast<int*>(p));
      *called_off = 0;
    }
    return called_off.get();
  }
  struct FreeHost {
    void operator()(int* p) const { cudaFreeHost(p); }
  };
  std::unique_ptr<int, FreeHost> called_off;
};

DeviceFilters::DeviceFilters(const cudp::engine::SequencesView& db, int device)
    : impl_(std::make_unique<Impl>(db, device)) {}
DeviceFilters::~DeviceFilters() = default;

std::string DeviceFilters::device_name() const {
  impl_->use();
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "GPU";
  return prop.name;
}

bool DeviceFilters::streamed() const { return impl_->stream != nullptr; }

cudp::hmmer::FilterSurvivors DeviceFilters::msv(const MsvRequest& request) {
  return std::move(msv(std::vector<MsvRequest>{request}).front());
}

std::vector<cudp::hmmer::FilterSurvivors> DeviceFilters::msv(const std::vector<MsvRequest>& requests) {
  impl_->use();
  std::vector<cudp::hmmer::FilterSurvivors> out(requests.size());
  std::vector<std::size_t> on_device;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    if (impl_->sets[0]->msv.fits(requests[k].profile->M)) {
      on_device.push_back(k);
    } else {
      out[k] = cudp::hmmer::keep_may_pass(impl_->host_msv(*requests[k].profile),
                                          [&](std::size_t i) { return impl_->db.length(i); }, requests[k].may_pass);
    }
  }
  if (on_device.empty()) return out;
  double kernel_ms = 0;
  impl_->each_batch(impl_->all, [&](FilterSet& f, const cudp::engine::SequencesView&,
                                    const std::vector<std::uint32_t>& ids, std::size_t first) {
    for (const std::size_t k : on_device) {
      cudp::hmmer::FilterSurvivors part = f.msv.survivors(*requests[k].profile, ids, requests[k].may_pass);
      if (first == 0 && out[k].positions.empty()) {
        out[k] = std::move(part);  // the first batch, or the whole database when it is resident
      } else {
        for (const std::uint32_t position : part.positions)
          out[k].positions.push_back(static_cast<std::uint32_t>(first) + position);
        out[k].results.insert(out[k].results.end(), part.results.begin(), part.results.end());
      }
      kernel_ms += f.msv.last_kernel_ms();
    }
  });
  StageTimes::global().add_seconds("  msv kernel", kernel_ms / 1e3);
  return out;
}

// A model larger than every compiled MSV shape.
std::vector<cudp::hmmer::FilterResult> DeviceFilters::Impl::host_msv(const cudp::hmmer::MsvFilterProfile& profile) {
#if CUDP_HAS_SSE_LANES
  return host.msv(profile);
#else
  std::vector<cudp::hmmer::FilterResult> out(all.size());
  cudp::host::parallel_for(
      out.size(), 0, [&] { return profile; },
      [&](cudp::hmmer::MsvFilterProfile& p, std::size_t i) {
        p.set_target_length(db.length(i));
        out[i] = cudp::hmmer::msv_filter(p, db.data(i), db.length(i));
      });
  return out;
#endif
}

std::vector<cudp::hmmer::BiasSum> DeviceFilters::bias(const cudp::hmmer::BiasModel& model,
                                                       const std::vector<std::uint32_t>& targets) {
  impl_->use();
  if (impl_->stream) return {};  // the batches are gone by the decisions: the host computes the sums
  return impl_->sets[0]->bias.sums(model, targets);
}

std::vector<cudp::hmmer::FilterResult> DeviceFilters::viterbi(const cudp::hmmer::ViterbiFilterProfile& profile,
                                                              const std::vector<std::uint32_t>& targets) {
  impl_->use();
  std::vector<cudp::hmmer::FilterResult> out(targets.size());
  std::vector<std::size_t> positions;  // of the targets the device leaves to the host
  double kernel_ms = 0, launch_ms = 0, runner_ms = 0;
  impl_->each_batch(targets, [&](FilterSet& f, const cudp::engine::SequencesView& batch,
                                 const std::vector<std::uint32_t>& ids, std::size_t first) {
    std::vector<std::uint32_t> on_host;
    const auto part = f.viterbi.scores(profile, ids, batch, on_host, impl_->codes_in_db);
    std::copy(part.begin(), part.end(), out.begin() + static_cast<std::ptrdiff_t>(first));
    if (on_host.size() < ids.size()) {  // the runner ran
      kernel_ms += f.viterbi.last_kernel_ms();
      launch_ms += f.viterbi.last_launch_ms();
      runner_ms += f.viterbi.last_wall_ms();
    }
    for (std::size_t i = 0, h = 0; i < ids.size() && h < on_host.size(); ++i) {
      if (ids[i] == on_host[h]) {
        positions.push_back(first + i);
        ++h;
      }
    }
  });
  StageTimes::global().add_seconds("  viterbi kernel", kernel_ms / 1e3);
  // Where the rest of the stage goes: the runner's calls until their kernels' launch, and in all.
  StageTimes::global().add_seconds("  viterbi runner until the launch", launch_ms / 1e3);
  StageTimes::global().add_seconds("  viterbi runner in all", runner_ms / 1e3);
  if (positions.empty()) return out;
  const auto host_start = StageTimes::clock::now();
#if CUDP_HAS_SSE_LANES
  std::vector<std::uint32_t> on_host(positions.size());
  for (std::size_t n = 0; n < positions.size(); ++n) on_host[n] = targets[positions[n]];
  const std::vector<cudp::hmmer::FilterResult> scored = impl_->host.viterbi(profile, on_host);
  for (std::size_t n = 0; n < positions.size(); ++n) out[positions[n]] = scored[n];
#else
  cudp::host::parallel_for(
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
  impl_->use();
  if (!impl_->sets[0]->forward.fits(profile.M)) return {};
  std::vector<float> out(targets.size());
  impl_->each_batch(targets, [&](FilterSet& f, const cudp::engine::SequencesView&,
                                 const std::vector<std::uint32_t>& ids, std::size_t first) {
    const auto part = f.forward.scores(profile, ids);
    std::copy(part.begin(), part.end(), out.begin() + static_cast<std::ptrdiff_t>(first));
  });
  return out;
}

bool DeviceFilters::parsers(const cudp::hmmer::OddsTables& tables, const std::vector<std::uint32_t>& targets,
                            cudp::hmmer::ParserRowsBatch& rows) {
  impl_->use();
  std::vector<const std::uint8_t*> residues(targets.size());
  std::vector<std::uint32_t> lengths(targets.size());
  for (std::size_t j = 0; j < targets.size(); ++j) {
    residues[j] = impl_->db.data(targets[j]);
    lengths[j] = static_cast<std::uint32_t>(impl_->db.length(targets[j]));
  }
  impl_->parsers.set_model(tables);
  if (!impl_->parsers.fits()) return false;
  impl_->parsers.run(residues, lengths, rows, impl_->parser_stream.get(), nullptr, nullptr,
                     impl_->parsers_called_off());
  return *impl_->parsers_called_off() == 0;
}

std::size_t DeviceFilters::parsers_at_once(const cudp::hmmer::OddsTables& tables) {
  impl_->use();
  impl_->parsers.set_model(tables);
  return impl_->parsers.targets_at_once();
}

void DeviceFilters::call_off_parsers(bool off) {
  impl_->use();
  *impl_->parsers_called_off() = off ? 1 : 0;
}

bool DeviceFilters::envelopes(const cudp::hmmer::OddsTables& tables,
                              const std::vector<cudp::hmmer::EnvelopeRequest>& batch, bool columns,
                              cudp::hmmer::EnvelopeBatch& out) {
  impl_->use();
  if (!impl_->rescorer) {
    // The envelopes' matrices take what the filters left free (or CUDP_GPU_MEMORY_MB's share of it), less a margin
    // for the other threads' kernels.
    const std::optional<std::uint64_t> free = usable_memory();
    if (!free) throw std::runtime_error("cannot read the GPU's free memory");
    const std::uint64_t room = *free > 2 * kFixed ? (*free - kFixed) / 10 * 9 : *free / 2;
    impl_->rescorer = std::make_unique<cudp::hmmer::DeviceEnvelopeRescorer>(room);
  }
  impl_->rescorer->set_model(tables);
  if (!impl_->rescorer->fits()) return false;
  impl_->rescorer->run(batch, columns, out, impl_->envelope_stream.get());
  return true;
}

double DeviceFilters::kernel_seconds() const {
  double ms = 0;
  for (const auto& f : impl_->sets) ms += f->msv.kernel_ms() + f->viterbi.kernel_ms() + f->forward.kernel_ms();
  return ms / 1e3;
}

}  // namespace hmmsearch
