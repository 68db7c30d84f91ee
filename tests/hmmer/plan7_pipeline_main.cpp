// Runs hmmsearch's pipeline (Plan7Pipeline::run, all on the host) for every model of an HMMER3 file against a
// FASTA file and prints, tab-separated, what hmmsearch's --tblout/--domtblout and statistics block show:
//   counts  model  targets  residues  passed_msv  passed_bias  passed_vit  passed_fwd
//   hit     model  target  length  bits  pre_bits  lnP  exp  reg  clu  ov  env  dom
//   domain  model  target  index  env_from  env_to  ali_from  ali_to  hmm_from  hmm_to  bits  bias_bits  lnP  acc
// Options after the two files: --max, --nobias, --nonull2, --F1 x, --F2 x, --F3 x, --seed n (as hmmsearch's).
// --bits adds, per hit, the numbers of domain definition as raw float bits (hexadecimal), for bit-for-bit
// comparisons with HMMER's own:
//   bits-hit     model  target  expected  regions  clustered  overlaps  envelopes  domains
//   bits-domain  model  target  env_from  env_to  ali_from  ali_to  hmm_from  hmm_to  env_nats  null2_nats
// and for every target the biased-composition filter's score (nats):
//   bits-bias    model  target  filter_nats
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "cudp/hmmer/plan7_pipeline.hpp"
#include "cudp/io/fasta.hpp"
#include "cudp/hmmer/hmm_file.hpp"

namespace {
unsigned float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
}  // namespace

int main(int argc, char** argv) {
  cudp::hmmer::use_hmmer_float_mode();  // hmmsearch's mode, so that the bits compared are produced the same way
  if (argc < 3) {
    std::fprintf(
        stderr,
        "usage: %s MODELS.hmm TARGETS.fa [--max] [--nobias] [--nonull2] [--F1 x] [--F2 x] [--F3 x] [--seed n]\n",
        argv[0]);
    return 2;
  }
  cudp::hmmer::Plan7PipelineOptions options;
  bool bits = false;
  for (int a = 3; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--max")
      options.max = true;
    else if (arg == "--bits")
      bits = true;
    else if (arg == "--nobias")
      options.bias_filter = false;
    else if (arg == "--nonull2")
      options.null2 = false;
    else if (arg == "--seed" && a + 1 < argc)
      options.seed = static_cast<std::uint32_t>(std::atol(argv[++a]));
    else if ((arg == "--F1" || arg == "--F2" || arg == "--F3") && a + 1 < argc) {
      const double value = std::atof(argv[++a]);
      (arg == "--F1" ? options.F1 : arg == "--F2" ? options.F2 : options.F3) = value;
    } else {
      std::fprintf(stderr, "unknown option %s\n", arg.c_str());
      return 2;
    }
  }
  try {
    cudp::hmmer::HmmReader models(argv[1]);
    cudp::hmmer::HmmModel hmm;
    while (models.next(hmm)) {
      const cudp::hmmer::Plan7Alphabet& alphabet = cudp::hmmer::plan7_alphabet_of(hmm.alphabet);
      const cudp::hmmer::Plan7Pipeline pipeline(hmm, cudp::hmmer::default_null_model(alphabet), options);
      const cudp::io::SequenceSet targets = cudp::io::read_fasta(argv[2], alphabet.sequence_alphabet);
      cudp::hmmer::Plan7PipelineCounts counts;
      cudp::hmmer::Plan7Pipeline::Workspace ws;
      for (std::size_t s = 0; s < targets.size(); ++s) {
        if (bits && targets.length(s) > 0) {
          std::printf("bits-bias\t%s\t%s\t%08x\n", hmm.name.c_str(), targets.names[s].c_str(),
                      float_bits(pipeline.bias_filter().score(targets.data(s), targets.length(s))));
        }
        const auto hit = pipeline.run(targets.data(s), targets.length(s), counts, ws);
        if (!hit) continue;
        const char* name = targets.names[s].c_str();
        std::printf("hit\t%s\t%s\t%u\t%.4f\t%.4f\t%.6g\t%.4f\t%d\t%d\t%d\t%d\t%zu\n", hmm.name.c_str(), name,
                    targets.length(s), hit->bits, hit->pre_bits, hit->lnP, hit->expected_domains, hit->regions,
                    hit->clustered, hit->overlaps, hit->envelopes, hit->domains.size());
        if (bits) {
          std::printf("bits-hit\t%s\t%s\t%08x\t%d\t%d\t%d\t%d\t%zu\n", hmm.name.c_str(), name,
                      float_bits(hit->expected_domains), hit->regions, hit->clustered, hit->overlaps, hit->envelopes,
                      hit->domains.size());
          for (const auto& dom : hit->domains) {
            std::printf("bits-domain\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%08x\t%08x\n", hmm.name.c_str(), name,
                        dom.env_from, dom.env_to, dom.ali_from, dom.ali_to, dom.hmm_from, dom.hmm_to,
                        float_bits(dom.env_nats), float_bits(dom.null2_nats));
          }
        }
        for (std::size_t d = 0; d < hit->domains.size(); ++d) {
          const auto& dom = hit->domains[d];
          std::printf("domain\t%s\t%s\t%zu\t%d\t%d\t%d\t%d\t%d\t%d\t%.4f\t%.4f\t%.6g\t%.4f\n", hmm.name.c_str(), name,
                      d + 1, dom.env_from, dom.env_to, dom.ali_from, dom.ali_to, dom.hmm_from, dom.hmm_to, dom.bits,
                      dom.bias_bits, dom.lnP, dom.mean_posterior);
        }
      }
      std::printf("counts\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n", hmm.name.c_str(),
                  static_cast<unsigned long long>(counts.targets), static_cast<unsigned long long>(counts.residues),
                  static_cast<unsigned long long>(counts.passed_msv),
                  static_cast<unsigned long long>(counts.passed_bias),
                  static_cast<unsigned long long>(counts.passed_viterbi),
                  static_cast<unsigned long long>(counts.passed_forward));
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
