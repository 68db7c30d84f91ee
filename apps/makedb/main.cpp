// cudp-makedb: a FASTA file packed into the database format the search tools load without parsing.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <cudp/bio/alphabet.hpp>
#include <cudp/io/database_file.hpp>
#include <cudp/io/fasta.hpp>
#include <cudp/io/output_files.hpp>

#include "kit/input_files.hpp"
#include "kit/tool.hpp"

namespace {

constexpr const char* kUsage =
    "usage: cudp-makedb [--dna] <in.fa[.gz]> <out.cudpdb>\n"
    "\n"
    "Packs the sequences of a FASTA file (plain or gzip-compressed; '-' is standard input) into a binary database\n"
    "that the cudp search tools load without parsing. The database is written whole or not at all; a pipe or\n"
    "/dev/stdout takes it as a stream.\n"
    "\n"
    "  --dna       the sequences are nucleotides (default: protein)\n"
    "  --version   the version and what this build has\n"
    "  -h, --help  show this message\n";

struct Options {
  bool dna = false;
  std::string fasta, database;
};

std::optional<Options> parse_options(int argc, const char* const* argv) {
  Options o;
  std::vector<std::string> files;
  cudp::apps::OptionBindings options;
  options.flag("--dna", o.dna);
  if (!options.parse(argc, argv, 1, [&files](const std::string& word) { files.push_back(word); })) return std::nullopt;
  if (files.size() != 2)
    cudp::apps::usage_error("expected two arguments, <in.fa[.gz]> and <out.cudpdb>, got " +
                            std::to_string(files.size()));
  o.fasta = files[0];
  o.database = files[1];
  return o;
}

int run(const Options& o, const cudp::apps::ToolContext&) {
  const cudp::bio::Alphabet& alphabet = o.dna ? cudp::bio::dna() : cudp::bio::protein();
  const auto start = std::chrono::steady_clock::now();
  cudp::io::check_writable(o.database);  // before the reading, which may take minutes
  const cudp::apps::InputFile fasta = cudp::apps::input_file(o.fasta);
  const cudp::io::SequenceSet set =
      cudp::io::read_fasta(std::make_unique<cudp::io::GzipFileSource>(fasta.path, fasta.name), fasta.name, alphabet);
  cudp::io::write_database(o.database, set, alphabet);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "cudp-makedb: %s: %zu %s sequences, %llu residues, %.2f s\n", o.database.c_str(), set.size(),
               alphabet.name, static_cast<unsigned long long>(set.total_residues()), seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A usage error exits with 1, as it always has for this tool.
  return cudp::apps::run_tool(argc, argv, {"cudp-makedb", 1}, parse_options, kUsage, run);
}
