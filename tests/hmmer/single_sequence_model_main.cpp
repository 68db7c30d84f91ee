// cudp_seqmodel: the profile HMM phmmer makes of each query, written as hmmbuild --singlemx writes it, for
// comparing the two (single_sequence_model_test.cpp does it for many queries).
//   cudp_seqmodel [--mx NAME] [--popen x] [--pextend x] [--seed n] [-n NAME] OUT.hmm SEQFILE
// Every FASTA record of SEQFILE becomes one model named after the record (or NAME), in OUT.hmm ('-': stdout).
#include <cstdio>
#include <cstdlib>
#include <cudp/hmmer/hmm_file_writer.hpp>
#include <cudp/hmmer/single_sequence_model.hpp>
#include <cudp/io/fasta.hpp>
#include <fstream>
#include <iostream>
#include <string>

namespace {

[[noreturn]] void usage() {
  std::cerr << "usage: cudp_seqmodel [--mx NAME] [--popen x] [--pextend x] [--seed n] [-n NAME] OUT.hmm SEQFILE\n";
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  cudp::hmmer::SingleSequenceOptions options;
  std::string name;
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage();
    const std::string value = argv[++i];
    if (flag == "--mx") {
      options.matrix = value;
    } else if (flag == "--popen") {
      options.popen = std::stod(value);
    } else if (flag == "--pextend") {
      options.pextend = std::stod(value);
    } else if (flag == "--seed") {
      options.calibration.seed = static_cast<std::uint32_t>(std::stoul(value));
    } else if (flag == "-n") {
      name = value;
    } else {
      usage();
    }
  }
  if (argc - i != 2) usage();
  const std::string out_path = argv[i];
  try {
    cudp::hmmer::SingleSequenceBuilder builder(options);
    cudp::io::FastaReader reader(argv[i + 1], cudp::hmmer::plan7_amino().sequence_alphabet);
    std::ofstream file;
    if (out_path != "-") {
      file.open(out_path);
      if (!file) throw std::runtime_error("cannot write " + out_path);
    }
    std::ostream& out = out_path == "-" ? std::cout : file;
    cudp::io::FastaRecord record;
    while (reader.next(record)) {
      const cudp::hmmer::HmmModel hmm =
          builder.build(name.empty() ? record.name : name, record.codes.data(), record.codes.size());
      cudp::hmmer::write_hmm(out, hmm);
    }
  } catch (const std::exception& e) {
    std::cerr << "cudp_seqmodel: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
