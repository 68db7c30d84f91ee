#pragma once
// cudp-swsearch's command line (GNU syntax, kit/command_line.hpp), checked into a validated configuration.
#include <optional>
#include <string>

#include "kit/command_line.hpp"
#include "kit/gpu_choice.hpp"

namespace swsearch {

inline const char* usage_text() {
  return
      "usage: cudp-swsearch --query Q.fa --db D.fa [options]\n"
      "\n"
      "Smith-Waterman local alignment (affine gaps) of every query against every database sequence.\n"
      "A gap of length k costs OPEN + k*EXTEND (BLAST convention; ssearch36 -f OPEN -g EXTEND).\n"
      "\n"
      "  --query FILE        query sequences: FASTA (plain or .gz) or a cudp-makedb file; several queries are\n"
      "                      searched in turn. A file may be a pipe; '-' is standard input (for one of the two)\n"
      "  --db FILE           database: FASTA (plain or .gz) or a cudp-makedb file\n"
      "  --matrix NAME|FILE  BLOSUM45, BLOSUM50, BLOSUM62 (default), BLOSUM80, PAM250, or an NCBI-format file\n"
      "  --gap-open N        gap open cost, >= 0 (default 11)\n"
      "  --gap-extend N      gap extension cost, > 0 (default 1)\n"
      "  --top N             hits reported per query (default 10)\n"
      "  --format tsv|tabular|text\n"
      "                      tsv (default): one line per hit; tabular: BLAST's -outfmt 6 columns; text: a table\n"
      "                      per query and a summary\n"
      "  --alignments        show each reported hit's alignment (text), or add its CIGAR as a last column\n"
      "  --backend auto|cuda|host   auto (default) uses the GPU when one is present\n"
      "  --gpus N|all        GPUs to split the database across (default: all that CUDA_VISIBLE_DEVICES lets\n"
      "                      through; one per process under mpirun)\n"
      "  --threads N         host threads: reading a packed database, the host backend and the hits'\n"
      "                      coordinates, >= 0 (default 0: all cores)\n"
      "  --out FILE          write the results to FILE instead of standard output\n"
      "  --version           the version and what this build has\n"
      "  -h, --help          this text\n"
      "\n"
      "With several GPUs, each scores a part of the database of about equal residues; under mpirun (a build with\n"
      "MPI) every process searches its shard of the database, and the first merges the hits. Either way the output\n"
      "is that of one GPU and one process. Under mpirun give each process its --threads; process r of a node takes\n"
      "GPUs r*N to r*N+N-1 (modulo those it sees) with --gpus N.\n"
      "\n"
      "TSV columns: query, target, raw score, bit score, E-value, query start, query end, target start, target end\n"
      "(1-based, inclusive), percent identity, alignment length, mismatches, gap openings. Tabular columns: qseqid\n"
      "sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore, no header. Bit scores and E-values use the published gapped Karlin-Altschul parameters of the\n"
      "matrix and gap costs; they are left as '-' for pairs that have none.\n";
}

struct Options {
  std::string query, db, matrix = "BLOSUM62", format = "tsv", backend = "auto", out;
  int gap_open = 11, gap_extend = 1, top = 10, threads = 0, gpus = cudp::apps::kGpusUnset;
  bool alignments = false;
};

// The options, checked; nullopt for --help.
inline std::optional<Options> parse_options(int argc, const char* const* argv) {
  using cudp::apps::usage_error;
  Options o;
  cudp::apps::OptionBindings options;
  options.word("--query", o.query).word("--db", o.db).word("--matrix", o.matrix);
  options.integer("--gap-open", o.gap_open).integer("--gap-extend", o.gap_extend).integer("--top", o.top);
  options.word("--format", o.format).flag("--alignments", o.alignments).word("--backend", o.backend);
  options.integer("--threads", o.threads).word("--out", o.out);
  options.bind("--gpus", cudp::apps::OptionValue::word,
               [&o](const std::string& flag, const std::string& value) { o.gpus = cudp::apps::parse_gpus(flag, value); });
  if (!options.parse(argc, argv, 1, cudp::apps::refuse_operands("the inputs are given with --query and --db")))
    return std::nullopt;
  if (o.query.empty()) usage_error("--query is required");
  if (o.db.empty()) usage_error("--db is required");
  if (o.query == "-" && o.db == "-") usage_error("--query and --db cannot both be standard input ('-')");
  if (o.gap_open < 0) usage_error("--gap-open must be >= 0, got " + std::to_string(o.gap_open));
  if (o.gap_extend <= 0) usage_error("--gap-extend must be > 0, got " + std::to_string(o.gap_extend));
  if (o.top <= 0) usage_error("--top must be > 0");
  if (o.threads < 0) usage_error("--threads must be >= 0 (0: all cores), got " + std::to_string(o.threads));
  cudp::apps::check_choice("--format", o.format, {"tsv", "tabular", "text"});
  cudp::apps::check_choice("--backend", o.backend, {"auto", "cuda", "host"});
  return o;
}

}  // namespace swsearch
