// cudp-makedb: converts a FASTA file (plain or gzip) into a packed cudp database, so that repeated searches of the
// same database skip parsing.
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <cudp/bio/alphabet.hpp>
#include <cudp/io/database_file.hpp>
#include <cudp/io/fasta.hpp>

namespace {

constexpr const char* usage =
    "usage: cudp-makedb [--dna] <in.fa[.gz]> <out.cudpdb>\n"
    "\n"
    "Packs the sequences of a FASTA file (plain or gzip-compressed) into a binary database that the cudp search\n"
    "tools load without parsing.\n"
    "\n"
    "  --dna     the sequences are nucleotides (default: protein)\n"
    "  --help    show this message\n";

}  // namespace

int main(int argc, char** argv) {
  const cudp::bio::Alphabet* alphabet = &cudp::bio::protein();
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage, stdout);
      return 0;
    }
    if (arg == "--dna") {
      alphabet = &cudp::bio::dna();
    } else if (arg.size() > 1 && arg[0] == '-') {
      std::fprintf(stderr, "cudp-makedb: unknown option '%s'\n%s", arg.c_str(), usage);
      return 1;
    } else {
      files.push_back(arg);
    }
  }
  if (files.size() != 2) {
    std::fputs(usage, stderr);
    return 1;
  }

  try {
    const auto start = std::chrono::steady_clock::now();
    const cudp::io::SequenceSet set = cudp::io::read_fasta(files[0], *alphabet);
    cudp::io::write_database(files[1], set, *alphabet);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "cudp-makedb: %s: %zu %s sequences, %llu residues, %.2f s\n", files[1].c_str(), set.size(),
                 alphabet->name, static_cast<unsigned long long>(set.total_residues()), seconds);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "cudp-makedb: %s\n", error.what());
    return 1;
  }
  return 0;
}
