// Runs the first two stages of hmmsearch's pipeline (MSV filter against F1, Viterbi filter against F2, bias
// filter off) with the scalar reference filters, for every model of an HMMER3 file against a FASTA file, and
// prints per model the counts that hmmsearch --nobias prints as "Passed MSV filter" and "Passed Vit filter":
//   model  targets  passed_msv  passed_vit
// With --scores, one line per target instead:
//   model  target  length  msv_status  msv_bits  msv_pvalue  vit_bits  vit_pvalue
// (status 0 ok, 1 overflow; the Viterbi columns are nan where the pipeline did not run it).
// With --raw, every filter runs on every target (F1, F2 are ignored) and the line carries the raw scores in nats
// as the hex bits of the float that p7_MSVFilter, p7_ViterbiFilter and p7_ForwardParser return, so that the
// oracle compares them bit for bit with HMMER's own:
//   model  target  length  msv_status  msv_nats  vit_status  vit_nats  fwd_nats
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <exception>
#include <limits>

#include "cudp/hmmer/plan7.hpp"
#include "cudp/hmmer/plan7_filter_reference.hpp"
#include "cudp/hmmer/plan7_odds_profile.hpp"
#include "cudp/hmmer/plan7_posterior.hpp"
#include "cudp/io/fasta.hpp"
#include "cudp/hmmer/hmm_file.hpp"

namespace {

std::uint32_t float_bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

}  // namespace

int main(int argc, char** argv) {
  const bool per_target = argc == 6 && std::strcmp(argv[5], "--scores") == 0;
  const bool raw = argc == 6 && std::strcmp(argv[5], "--raw") == 0;
  if (argc != 5 && !per_target && !raw) {
    std::fprintf(stderr, "usage: %s MODELS.hmm TARGETS.fa F1 F2 [--scores | --raw]\n", argv[0]);
    return 2;
  }
  const double F1 = std::atof(argv[3]);
  const double F2 = std::atof(argv[4]);
  try {
    cudp::hmmer::HmmReader models(argv[1]);
    cudp::hmmer::HmmModel hmm;
    while (models.next(hmm)) {
      if (!hmm.stats) throw std::runtime_error("model " + hmm.name + " has no STATS lines");
      const cudp::hmmer::Plan7Alphabet& alphabet = cudp::hmmer::plan7_alphabet_of(hmm.alphabet);
      const cudp::hmmer::Plan7Profile profile = cudp::hmmer::configure_profile(hmm, cudp::hmmer::default_null_model(alphabet));
      auto msv = cudp::hmmer::make_msv_filter_profile(profile, 400);
      auto vf = cudp::hmmer::make_viterbi_filter_profile(profile, 400);
      const cudp::io::SequenceSet targets = cudp::io::read_fasta(argv[2], alphabet.sequence_alphabet);
      if (raw) {
        // The Forward parser's profile as Plan7Pipeline builds it: multihit local, length set per target.
        cudp::hmmer::StripedOddsProfile odds(profile);
        cudp::hmmer::StripedMatrix parser;
        for (std::size_t s = 0; s < targets.size(); ++s) {
          const std::size_t L = targets.length(s);
          if (L == 0) continue;
          msv.set_target_length(static_cast<std::int64_t>(L));
          vf.set_target_length(static_cast<std::int64_t>(L));
          odds.set_mode(true, static_cast<std::int64_t>(L));
          const auto m = cudp::hmmer::msv_filter(msv, targets.data(s), L);
          const auto v = cudp::hmmer::viterbi_filter(vf, targets.data(s), L);
          const float f = cudp::hmmer::striped_forward(odds, targets.data(s), static_cast<int>(L), parser, false);
          std::printf("%s\t%s\t%zu\t%d\t%08x\t%d\t%08x\t%08x\n", hmm.name.c_str(), targets.names[s].c_str(), L,
                      static_cast<int>(m.status), float_bits(m.nats), static_cast<int>(v.status), float_bits(v.nats),
                      float_bits(f));
        }
        continue;
      }
      std::size_t passed_msv = 0, passed_vit = 0, counted = 0;
      for (std::size_t s = 0; s < targets.size(); ++s) {
        if (targets.length(s) == 0) continue;  // hmmsearch skips empty targets
        ++counted;
        const auto r = cudp::hmmer::run_filter_pipeline(msv, vf, *hmm.stats, targets.data(s), targets.length(s), F1, F2);
        passed_msv += r.passed_msv;
        passed_vit += r.passed_viterbi;
        if (per_target) {
          const double nan = std::numeric_limits<double>::quiet_NaN();
          std::printf("%s\t%s\t%u\t%d\t%.4f\t%.6g\t%.4f\t%.6g\n", hmm.name.c_str(), targets.names[s].c_str(),
                      targets.length(s), static_cast<int>(r.msv.status), r.msv_bits, r.msv_pvalue,
                      r.viterbi_run ? r.viterbi_bits : nan, r.viterbi_run ? r.viterbi_pvalue : nan);
        }
      }
      if (!per_target) std::printf("%s\t%zu\t%zu\t%zu\n", hmm.name.c_str(), counted, passed_msv, passed_vit);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
