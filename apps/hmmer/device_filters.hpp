#pragma once
// The boundary between cudp-hmmsearch (plain C++) and its CUDA filters (compiled by nvcc when present): the MSV and
// Viterbi filter scores of database targets on the GPU, with exactly the values and statuses of the host
// filters (cudp::hmmer::msv_filter, cudp::hmmer::viterbi_filter).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cudp/hmmer/filter_survivors.hpp>
#include <cudp/hmmer/plan7_bias_filter.hpp>
#include <cudp/hmmer/plan7_filter_reference.hpp>
#include <cudp/hmmer/plan7_odds_layout.hpp>
#include <cudp/hmmer/plan7_profile.hpp>
#include <cudp/engine/sequences.hpp>

namespace hmmsearch {

bool cuda_available();
// The CUDA devices this process sees; 0 without a device or a CUDA backend.
int cuda_device_count();
// The devices that --gpus asks for (cudp::apps::choose_gpus: process `process_on_node` of a node, in a world
// of `processes`), with their contexts created (the slow part of starting CUDA) so that this can run on another
// thread while the inputs are read. The first is the one used where no device is named. Empty when there is no
// device, no CUDA backend, or a context fails; a usage error when --gpus asks for more devices than there are.
std::vector<int> start_cuda(int gpus = 1, int process_on_node = 0, int processes = 1);
// Whether the GPU `device` (-1: the first of start_cuda's) can search the database in the memory cudp-hmmsearch
// may use (all that is free, or CUDP_GPU_MEMORY_MB mebibytes when that is set): resident when it fits, streamed in
// batches when it does not; if not even that, `why` says how much is needed and available.
bool device_fits(const cudp::engine::SequencesView& db, std::string& why, int device = -1);

// A model's MSV filter profile and its test of certain failure (Plan7Pipeline::msv_test).
struct MsvRequest {
  const cudp::hmmer::MsvFilterProfile* profile = nullptr;
  cudp::hmmer::MsvMayPass may_pass;
};

class DeviceFilters {
 public:
  // Uploads the database once (residues in Plan7 alphabet codes) to serve every model of the run, or, when it does
  // not fit, streams it through the GPU in batches for each filter pass, the copies overlapping the kernels.
  // On GPU `device` (-1: the first of start_cuda's).
  explicit DeviceFilters(const cudp::engine::SequencesView& db, int device = -1);
  ~DeviceFilters();
  DeviceFilters(const DeviceFilters&) = delete;
  DeviceFilters& operator=(const DeviceFilters&) = delete;

  std::string device_name() const;
  bool streamed() const;  // the database goes through the GPU in batches
  // p7_MSVFilter for every target, the profile's length model set per target on the device. Only the results of
  // the targets that may pass come back (positions: target indices); the certain failures (may_pass false) are
  // set aside on the GPU.
  cudp::hmmer::FilterSurvivors msv(const MsvRequest& request);
  // The same for several models: a streamed database goes through the GPU once for all of them, not once each.
  std::vector<cudp::hmmer::FilterSurvivors> msv(const std::vector<MsvRequest>& requests);
  // The bias filter's Forward sums of the listed targets (cudp::hmmer::BiasFilter::forward_sum), in that order, each
  // certain to be the host's float or not (the host then computes it). Empty when the database is streamed.
  std::vector<cudp::hmmer::BiasSum> bias(const cudp::hmmer::BiasModel& model, const std::vector<std::uint32_t>& targets);
  // p7_ViterbiFilter for the listed targets (indices into the database), in that order.
  std::vector<cudp::hmmer::FilterResult> viterbi(const cudp::hmmer::ViterbiFilterProfile& profile,
                                                 const std::vector<std::uint32_t>& targets);
  // Forward scores (nats) of the listed targets for the F3 stage: HMMER's to float rounding, not bit for bit, so
  // the caller keeps a margin and lets the host pipeline decide. Empty when the model is too large for the
  // device Forward (the host then computes every Forward).
  std::vector<float> forward(const cudp::hmmer::Plan7Profile& profile, const std::vector<std::uint32_t>& targets);
  // HMMER's Forward and Backward parser rows of the listed targets (none of length 0), bit for bit the host's, for
  // domain definition (Plan7Pipeline::after_filters). False when the model is too large for the device's (the
  // host then computes them).
  bool parsers(const cudp::hmmer::OddsTables& tables, const std::vector<std::uint32_t>& targets,
               cudp::hmmer::ParserRowsBatch& rows);
  // How many targets' parsers the device computes at once for the model (a list of that many takes about the time
  // of its longest target); 0 when it computes none of the model's.
  std::size_t parsers_at_once(const cudp::hmmer::OddsTables& tables);
  // From another thread: stops a parsers() call under way (it then returns false), and every later one, until
  // called again with false. The host's workers call it off once they have taken every target.
  void call_off_parsers(bool off);
  // Domain envelopes rescored alone (HMMER's rescore_isolated_domain: unihit Forward and Backward, posterior
  // decoding, null2 by expectation where asked, the optimal-accuracy alignment and its columns with `columns`), for
  // the host to finish bit for bit as its own (adopt_rescored_envelope). Called from one thread beside the host's
  // workers. False when this device does not rescore envelopes of the model (the host then does).
  bool envelopes(const cudp::hmmer::OddsTables& tables, const std::vector<cudp::hmmer::EnvelopeRequest>& batch,
                 bool columns, cudp::hmmer::EnvelopeBatch& out);
  double kernel_seconds() const;  // device time spent in the filter kernels so far

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hmmsearch
