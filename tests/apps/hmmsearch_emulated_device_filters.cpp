// A DeviceFilters that computes on the host with the reference filters (and the striped Forward policy on the host
// tier, which the GPU runs too), so that cudp-hmmsearch's GPU path (MSV for all targets, the pipeline's decisions,
// Viterbi and Forward for the listed targets, the parser rows fed to the workers beside them, envelopes rescored
// beside them, the rest on host threads) is tested in builds without a GPU: it must give exactly the host path's
// results.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <cudp/hmmer/float_mode.hpp>
#include <cudp/hmmer/plan7_alphabet.hpp>
#include <cudp/hmmer/plan7_envelope.hpp>
#include <cudp/hmmer/plan7_posterior.hpp>
#include <cudp/hmmer/striped_tables.hpp>
#include <cudp/tiers/striped_rows_host.hpp>

#include "hmmer/device_filters.hpp"

namespace hmmsearch {

bool cuda_available() { return true; }
int cuda_device_count() { return 1; }
std::vector<int> start_cuda(int, int, int) { return {0}; }
bool device_fits(const cudp::engine::SequencesView&, std::string&, int) { return true; }

// The thread of each call of msv() for a list of profiles (run.cpp's MSV passes) and of forward() (the first of a
// model's later stages), for the tests of who runs them.
std::mutex emulated_msv_lock;
std::vector<std::thread::id> emulated_msv_threads, emulated_forward_threads;

struct DeviceFilters::Impl {
  cudp::engine::SequencesView db;
  std::atomic<bool> parsers_called_off{false};
};

DeviceFilters::DeviceFilters(const cudp::engine::SequencesView& db, int) : impl_(new Impl{db, false}) {}
DeviceFilters::~DeviceFilters() = default;

std::string DeviceFilters::device_name() const { return "emulated on the host"; }
bool DeviceFilters::streamed() const { return false; }

cudp::hmmer::FilterSurvivors DeviceFilters::msv(const MsvRequest& request) {
  std::vector<cudp::hmmer::FilterResult> all;
  cudp::hmmer::MsvFilterProfile p = *request.profile;
  for (std::size_t i = 0; i < impl_->db.count; ++i) {
    p.set_target_length(impl_->db.length(i));
    all.push_back(cudp::hmmer::msv_filter(p, impl_->db.data(i), impl_->db.length(i)));
  }
  return cudp::hmmer::keep_may_pass(all, [&](std::size_t i) { return impl_->db.length(i); }, request.may_pass);
}

std::vector<cudp::hmmer::FilterSurvivors> DeviceFilters::msv(const std::vector<MsvRequest>& requests) {
  {
    const std::lock_guard<std::mutex> hold(emulated_msv_lock);
    emulated_msv_threads.push_back(std::this_thread::get_id());
  }
  std::vector<cudp::hmmer::FilterSurvivors> out;
  for (const MsvRequest& request : requests) out.push_back(msv(request));
  return out;
}

// The bias filter's sums as the GPU hands them back: the host's float where certain, and every third target
// reported as not certain with a sum no pipeline may take (NaN), which the pipeline must compute again itself.
std::atomic<std::uint64_t> emulated_bias_certain{0}, emulated_bias_doubtful{0};

std::vector<cudp::hmmer::BiasSum> DeviceFilters::bias(const cudp::hmmer::BiasModel& model,
                                                       const std::vector<std::uint32_t>& targets) {
  cudp::hmmer::use_hmmer_float_mode();  // the pipeline's workers compute in it
  std::vector<cudp::hmmer::BiasSum> out(targets.size());
  for (std::size_t j = 0; j < targets.size(); ++j) {
    const std::uint32_t i = targets[j];
    if (i >= impl_->db.count) throw std::out_of_range("DeviceFilters::bias: target index");
    const std::uint32_t L = impl_->db.length(i);
    if (L == 0 || i % 3 == 2) {
      out[j] = {std::nanf(""), false};
      ++emulated_bias_doubtful;
      continue;
    }
    out[j].nats = cudp::hmmer::bias_forward_sum(
        model, impl_->db.data(i), L, [](float x) { return static_cast<float>(std::log(static_cast<double>(x))); },
        [](float, float) {});
    out[j].certain = true;
    ++emulated_bias_certain;
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
  {
    const std::lock_guard<std::mutex> hold(emulated_msv_lock);
    emulated_forward_threads.push_back(std::this_thread::get_id());
  }
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
std::atomic<std::size_t> emulated_parsers_at_once{5};
std::atomic<int> emulated_parser_delay_ms{0};

std::size_t DeviceFilters::parsers_at_once(const cudp::hmmer::OddsTables&) { return emulated_parsers_at_once; }

// A slow device (emulated_parser_delay_ms per call) lets the host's workers reach the list it has in hand.
bool DeviceFilters::parsers(const cudp::hmmer::OddsTables& tables, const std::vector<std::uint32_t>& targets,
                            cudp::hmmer::ParserRowsBatch& rows) {
  std::this_thread::sleep_for(std::chrono::milliseconds(emulated_parser_delay_ms.load()));
  if (impl_->parsers_called_off) return false;
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
  return !impl_->parsers_called_off;
}

void DeviceFilters::call_off_parsers(bool off) { impl_->parsers_called_off = off; }

std::atomic<std::uint64_t> emulated_envelopes{0};
std::atomic<bool> emulated_envelopes_fail{false};

namespace {

// The unihit profile whose special transitions a request carries: its target's length is not in the request, so
// it is found from N's move probability, 2 / (L + 2), and checked.
void set_unihit_for(cudp::hmmer::StripedOddsProfile& om, const cudp::hmmer::OddsSpecials& xf) {
  const auto guess = static_cast<std::int64_t>(std::llround(2.0 / static_cast<double>(xf.n_move) - 2.0));
  for (std::int64_t L = std::max<std::int64_t>(1, guess - 2); L <= guess + 2; ++L) {
    om.set_mode(false, L);
    const cudp::hmmer::OddsSpecials& e = om.xf();
    if (e.n_loop == xf.n_loop && e.n_move == xf.n_move && e.e_loop == xf.e_loop && e.e_move == xf.e_move &&
        e.c_loop == xf.c_loop && e.c_move == xf.c_move && e.j_loop == xf.j_loop && e.j_move == xf.j_move)
      return;
  }
  throw std::invalid_argument("DeviceFilters::envelopes: a request's transitions are no unihit length model");
}

}  // namespace

// What the GPU hands back, from the host's own passes: the Forward's special rows, the optimal-accuracy result and
// columns, and null2's sums over the posterior rows in ExpectedUsage::add_row's order.
bool DeviceFilters::envelopes(const cudp::hmmer::OddsTables& tables,
                              const std::vector<cudp::hmmer::EnvelopeRequest>& batch, bool columns,
                              cudp::hmmer::EnvelopeBatch& out) {
  using SM = cudp::hmmer::StripedMatrix;
  if (emulated_envelopes_fail) throw std::runtime_error("DeviceFilters::envelopes: an emulated device error");
  cudp::hmmer::use_hmmer_float_mode();
  cudp::hmmer::StripedOddsProfile om(tables);
  const int Q = om.Q();
  // The alphabet only serves null2's last step, which the host does.
  const cudp::hmmer::Plan7Alphabet& alphabet =
      om.Kp() == cudp::hmmer::plan7_amino().Kp ? cudp::hmmer::plan7_amino() : cudp::hmmer::plan7_dna();
  SM fwd, bck, ox;
  cudp::hmmer::EnvelopeScratch scratch;
  std::vector<cudp::hmmer::AlignedColumn> traced;
  std::vector<cudp::hmmer::Lanes4> row(static_cast<std::size_t>(Q) * 3);
  out = {};
  out.Q = Q;
  out.first_column.push_back(0);
  for (const cudp::hmmer::EnvelopeRequest& request : batch) {
    const int Ld = static_cast<int>(request.length);
    if (Ld == 0) throw std::invalid_argument("DeviceFilters::envelopes: an envelope of length 0");
    set_unihit_for(om, request.xf);
    cudp::hmmer::striped_forward(om, request.residues, Ld, fwd, true);
    cudp::hmmer::striped_backward(om, request.residues, Ld, fwd, bck, true);
    out.first_row.push_back(out.forward_rows.size() / cudp::hmmer::kSpecialCount);
    out.forward_rows.insert(out.forward_rows.end(), fwd.specials.begin(),
                            fwd.specials.begin() + (static_cast<std::ptrdiff_t>(Ld) + 1) * SM::kSpecials);
    cudp::hmmer::OptimalAccuracyResult oa;
    traced.clear();
    const bool decoded =
        cudp::hmmer::envelope_posteriors(om, alphabet, fwd, bck, scratch, ox, oa, nullptr, columns ? &traced : nullptr);
    out.decoded.push_back(decoded ? 1 : 0);
    out.expected_correct.push_back(decoded ? oa.expected_correct : 0.0f);
    for (const int c : {oa.sq_from, oa.sq_to, oa.hmm_from, oa.hmm_to, oa.ok ? 1 : 0})
      out.coordinates.push_back(decoded ? c : 0);
    out.first_usage.push_back(out.usage.size());
    if (request.null2) {
      std::vector<float> sums(out.usage_floats(), 0.0f);
      for (int i = 1; decoded && i <= Ld; ++i) {
        cudp::hmmer::decode_row(Q, fwd.row(i), bck.row(i), scratch.factors[static_cast<std::size_t>(i)], row.data());
        const float* x = scratch.specials.data() + static_cast<std::size_t>(i) * SM::kSpecials;
        for (int q = 0; q < Q; ++q) {
          for (int r = 0; r < 4; ++r) {
            float& m = sums[static_cast<std::size_t>(q) * 8 + static_cast<std::size_t>(r)];
            float& ins = sums[static_cast<std::size_t>(q) * 8 + 4 + static_cast<std::size_t>(r)];
            const float row_m = row[static_cast<std::size_t>(q) * 3 + SM::kM].v[r];
            const float row_i = row[static_cast<std::size_t>(q) * 3 + SM::kI].v[r];
            m = i == 1 ? row_m : row_m + m;
            ins = i == 1 ? row_i : row_i + ins;
          }
        }
        const std::size_t at = static_cast<std::size_t>(Q) * 8;
        sums[at] = i == 1 ? x[SM::kN] : sums[at] + x[SM::kN];
        sums[at + 1] = i == 1 ? x[SM::kC] : sums[at + 1] + x[SM::kC];
        sums[at + 2] = i == 1 ? x[SM::kJ] : sums[at + 2] + x[SM::kJ];
      }
      out.usage.insert(out.usage.end(), sums.begin(), sums.end());
    }
    if (columns && decoded) {
      for (const cudp::hmmer::AlignedColumn& c : traced)
        out.columns.push_back(cudp::hmmer::EnvelopeColumn{static_cast<std::int32_t>(c.state), c.k, c.i, c.pp});
    }
    out.first_column.push_back(out.columns.size());
  }
  emulated_envelopes += batch.size();
  return true;
}

double DeviceFilters::kernel_seconds() const { return 0.0; }

}  // namespace hmmsearch
