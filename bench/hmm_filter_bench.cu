// Plan7 filter benchmark: the MSV filter (s16x2 with DPX and u8x4), the SSV filter (s16x2) and the Viterbi filter
// on the GPU over a whole database, for models of a ladder of sizes (the hmmer-examples models given on the command
// line, then random models of about 100 to 2400 nodes), with Forward (float) too, printing GCUPS (kernel time,
// events) and checking a sample of targets against the scalar HMMER reference.
// Usage: cudp-hmm-filter-bench DB.fa [MODEL.hmm ...]
#include "gpu_bench_main.cuh"
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <cudp/hmmer/plan7.hpp>
#include <cudp/hmmer/plan7_filter_reference.hpp>
#include <cudp/hmmer/device_filters.cuh>
#include <cudp/io/fasta.hpp>
#include <cudp/hmmer/hmm_file.hpp>

#include "../tests/hmmer/random_plan7.hpp"

namespace {

using namespace cudp;

struct Totals {
  double cells = 0, msv_s = 0, msv_bytes_s = 0, ssv_s = 0, vit_s = 0, fwd_cells = 0, fwd_s = 0;
};

bool same_result(const hmmer::FilterResult& a, const hmmer::FilterResult& b) {
  return a.status == b.status && (a.status != hmmer::FilterStatus::Ok || a.nats == b.nats);
}

// Status and score as one number for MISMATCH lines: the score, +inf on overflow, nan for SSV's NoResult.
double shown(const hmmer::FilterResult& r) {
  return r.status == hmmer::FilterStatus::NoResult ? std::nan("") : static_cast<double>(r.nats);
}

int check_sample(const io::SequenceSet& db, hmmer::MsvFilterProfile msv, hmmer::ViterbiFilterProfile vf,
                 const std::vector<hmmer::FilterResult>& msv_got, const std::vector<hmmer::FilterResult>& ssv_got,
                 const std::vector<hmmer::FilterResult>& vit_got) {
  int mismatches = 0;
  for (std::size_t i = 0; i < db.size(); i += 997) {
    const auto L = db.length(i);
    msv.set_target_length(L);
    vf.set_target_length(L);
    const auto m = hmmer::msv_filter(msv, db.data(i), L);
    const auto s = hmmer::ssv_filter(msv, db.data(i), L);
    const auto v = hmmer::viterbi_filter(vf, db.data(i), L);
    if (!same_result(m, msv_got[i]) || !same_result(s, ssv_got[i]) || !same_result(v, vit_got[i])) {
      ++mismatches;
      std::printf("MISMATCH target %zu L=%u msv %g/%g ssv %g/%g vit %g/%g\n", i, L, shown(m), shown(msv_got[i]),
                  shown(s), shown(ssv_got[i]), shown(v), shown(vit_got[i]));
    }
  }
  return mismatches;
}

void bench_model(const std::string& label, const hmmer::HmmModel& hmm, const io::SequenceSet& db,
                 const engine::DeviceStripedDatabase& device_db, const std::vector<std::uint32_t>& all, Totals& totals) {
  const auto& alphabet = hmmer::plan7_alphabet_of(hmm.alphabet);
  const auto profile = hmmer::configure_profile(hmm, hmmer::default_null_model(alphabet));
  const auto msv = hmmer::make_msv_filter_profile(profile, 400);
  const auto vf = hmmer::make_viterbi_filter_profile(profile, 400);
  hmmer::DeviceMsvFilter<lanes::s16x2> words(device_db);
  hmmer::DeviceMsvFilter<lanes::u8x4> bytes(device_db);
  hmmer::DeviceSsvFilter<lanes::s16x2> ssv(device_db);
  hmmer::DeviceViterbiFilter<> viterbi(device_db);
  const double cells = static_cast<double>(db.residues.size()) * hmm.length;
  words.scores(msv, all);  // warm-up
  const auto msv_got = words.scores(msv, all);
  const double msv_s = words.last_kernel_ms() / 1e3;
  bytes.scores(msv, all);
  const double bytes_s = bytes.last_kernel_ms() / 1e3;
  ssv.scores(msv, all);  // warm-up, as for MSV s16x2: the first launch of a kernel loads it
  const auto ssv_got = ssv.scores(msv, all);
  const double ssv_s = ssv.last_kernel_ms() / 1e3;
  std::vector<std::uint32_t> host_targets;
  const auto vit_got = viterbi.scores(vf, all, engine::view_of(db), host_targets);
  const double vit_s = viterbi.last_kernel_ms() / 1e3;
  hmmer::DeviceForwardFilter<> forward(device_db);
  double fwd_s = 0;
  if (forward.fits(hmm.length)) {
    forward.scores(profile, all);
    fwd_s = forward.last_kernel_ms() / 1e3;
    totals.fwd_cells += cells;
    totals.fwd_s += fwd_s;
  }
  int passed = 0, ssv_no_result = 0;
  for (const auto& r : msv_got) passed += r.status == hmmer::FilterStatus::Overflow;
  for (const auto& r : ssv_got) ssv_no_result += r.status == hmmer::FilterStatus::NoResult;
  const int mismatches = check_sample(db, msv, vf, msv_got, ssv_got, vit_got);
  std::printf("%-14s M %5d  MSV s16x2 G%-2d Q%-2d %8.1f GCUPS  u8x4 %8.1f GCUPS  SSV s16x2 %8.1f GCUPS  "
              "Viterbi G%-2d Q%-2d %8.1f GCUPS  Forward %7.1f GCUPS  (host-scored %zu, MSV overflows %d, "
              "SSV no-result %d, sample mismatches %d)\n",
              label.c_str(), hmm.length, words.last_shape().group, words.last_shape().segments, cells / msv_s / 1e9,
              cells / bytes_s / 1e9, cells / ssv_s / 1e9, viterbi.last_shape().group, viterbi.last_shape().segments,
              cells / vit_s / 1e9, fwd_s > 0 ? cells / fwd_s / 1e9 : 0.0, host_targets.size(), passed, ssv_no_result,
              mismatches);
  std::fflush(stdout);
  totals.cells += cells;
  totals.msv_s += msv_s;
  totals.msv_bytes_s += bytes_s;
  totals.ssv_s += ssv_s;
  totals.vit_s += vit_s;
}

}  // namespace

int bench_main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DB.fa [MODEL.hmm ...]\n", argv[0]);
    return 2;
  }
  const auto& amino = hmmer::plan7_amino();
  const auto t0 = std::chrono::steady_clock::now();
  const io::SequenceSet db = io::read_fasta(argv[1], amino.sequence_alphabet);
  const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  cudaDeviceProp prop{};
  CUDP_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s; database %zu sequences, %zu residues (read in %.1f s)\n", prop.name, db.size(),
              db.residues.size(), read_s);
  const engine::DeviceStripedDatabase device_db(engine::view_of(db));
  std::vector<std::uint32_t> all(db.size());
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  Totals totals;
  for (int a = 2; a < argc; ++a) {
    for (const auto& hmm : hmmer::read_hmm_file(argv[a])) {
      if (hmm.alphabet == hmmer::HmmAlphabet::Amino) bench_model(hmm.name, hmm, db, device_db, all, totals);
    }
  }
  std::uint32_t seed = 1;
  for (int M : {100, 260, 400, 800, 1100, 2400}) {
    bench_model("random" + std::to_string(M), test::random_hmm({M, false, seed++}), db, device_db, all, totals);
  }
  std::printf("OVERALL MSV s16x2 %.1f GCUPS, MSV u8x4 %.1f GCUPS, SSV s16x2 %.1f GCUPS, Viterbi filter %.1f GCUPS, "
              "Forward %.1f GCUPS (%s)\n",
              totals.cells / totals.msv_s / 1e9, totals.cells / totals.msv_bytes_s / 1e9,
              totals.cells / totals.ssv_s / 1e9, totals.cells / totals.vit_s / 1e9,
              totals.fwd_cells / totals.fwd_s / 1e9, prop.name);
  return 0;
}

int main(int argc, char** argv) {
  constexpr const char* usage =
      "usage: cudp-hmm-filter-bench DB.fa [MODEL.hmm ...]\n";
  return run_gpu_bench("cudp-hmm-filter-bench", usage, argc, argv, [&] { return bench_main(argc, argv); });
}
