// cudp-swsearch: Smith-Waterman (affine gaps) search of protein queries against a protein database.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <cudp/bio/alphabet.hpp>
#include <cudp/bio/karlin_altschul.hpp>
#include <cudp/align/linear_space.hpp>
#include <cudp/tiers/parallel_for.hpp>
#include <cudp/io/database_file.hpp>
#include <cudp/io/error.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/io/output_files.hpp>
#include <cudp/tiers/host_cores.hpp>

#include "backend.hpp"
#include "kit/blast_numbers.hpp"
#include "kit/command_line.hpp"
#include "kit/gpu_choice.hpp"
#include "kit/mpi_world.hpp"

namespace {

const char* kUsage =
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

struct Options {
  std::string query, db, matrix = "BLOSUM62", format = "tsv", backend = "auto", out;
  int gap_open = 11, gap_extend = 1, top = 10, threads = 0, gpus = cudp::apps::kGpusUnset;
  bool alignments = false;
};

using cudp::apps::parse_int;
using cudp::apps::usage_error;

std::optional<Options> parse_args(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string flag = argv[a];
    const auto value = [&] { return cudp::apps::option_value(argc, argv, a, flag); };
    if (flag == "--help" || flag == "-h") return std::nullopt;
    else if (flag == "--query") o.query = value();
    else if (flag == "--db") o.db = value();
    else if (flag == "--matrix") o.matrix = value();
    else if (flag == "--gap-open") o.gap_open = parse_int(flag, value());
    else if (flag == "--gap-extend") o.gap_extend = parse_int(flag, value());
    else if (flag == "--top") o.top = parse_int(flag, value());
    else if (flag == "--format") o.format = value();
    else if (flag == "--alignments") o.alignments = true;
    else if (flag == "--backend") o.backend = value();
    else if (flag == "--threads") o.threads = parse_int(flag, value());
    else if (flag == "--gpus") o.gpus = cudp::apps::parse_gpus(flag, value());
    else if (flag == "--out") o.out = value();
    else if (flag.size() < 2 || flag[0] != '-')
      usage_error("unexpected argument '" + flag + "': the inputs are given with --query and --db");
    else usage_error("unknown option " + flag);
  }
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

// A hit's alignment as BLAST shows one: 60 columns a block, the query above, the target below, and between them the
// residue where both agree, '+' where they score above 0.
template <class Matrix>
std::string pairwise_text(const cudp::align::Alignment& a, const std::uint8_t* query, const std::uint8_t* target,
                          const Matrix& matrix, const cudp::bio::Alphabet& alphabet, const cudp::align::AlignmentCounts& c) {
  std::string top, middle, bottom;
  int q = a.query_begin, t = a.target_begin;
  for (const cudp::align::EditRun& run : a.edits)
    for (int k = 0; k < run.length; ++k) {
      const bool takes_query = run.op != cudp::align::EditOp::Deletion;
      const bool takes_target = run.op != cudp::align::EditOp::Insertion;
      top += takes_query ? alphabet.decode(query[q]) : '-';
      bottom += takes_target ? alphabet.decode(target[t]) : '-';
      middle += !(takes_query && takes_target) ? ' '
                : query[q] == target[t]        ? alphabet.decode(query[q])
                : matrix(target[t], query[q]) > 0 ? '+'
                                                  : ' ';
      q += takes_query;
      t += takes_target;
    }
  std::ostringstream out;
  char line[128];
  std::snprintf(line, sizeof line, "    Identities = %d/%d, Positives = %d/%d, Gaps = %d/%d\n", c.identities, c.length,
                c.positives, c.length, c.gaps, c.length);
  out << line;
  int qpos = a.query_begin, tpos = a.target_begin;
  for (std::size_t from = 0; from < top.size(); from += 60) {
    const std::string qs = top.substr(from, 60), ms = middle.substr(from, 60), ts = bottom.substr(from, 60);
    const int qn = static_cast<int>(qs.size() - std::count(qs.begin(), qs.end(), '-'));
    const int tn = static_cast<int>(ts.size() - std::count(ts.begin(), ts.end(), '-'));
    std::snprintf(line, sizeof line, "    Query  %-6d ", qpos + 1);
    out << '\n' << line << qs << ' ' << qpos + qn << '\n' << "                  " << ms << '\n';
    std::snprintf(line, sizeof line, "    Sbjct  %-6d ", tpos + 1);
    out << line << ts << ' ' << tpos + tn << '\n';
    qpos += qn;
    tpos += tn;
  }
  return out.str();
}

std::string format_evalue(double e) {
  char buf[32];
  std::snprintf(buf, sizeof buf, e < 1e-3 || e >= 1e5 ? "%.2e" : "%.3g", e);
  return buf;
}

// A reported hit, formatted: its line (and, in the text format with --alignments, its alignment), with what the
// processes of an MPI run merge it by. Records travel between processes as text: query, score and target on a
// first line, then the formatted text's length and the text.
struct HitRecord {
  std::size_t query;
  std::int32_t score;
  std::uint64_t target;  // index in the whole database
  std::string text;
};

std::string serialize(const std::vector<HitRecord>& records) {
  std::string out;
  for (const HitRecord& r : records)
    out += std::to_string(r.query) + ' ' + std::to_string(r.score) + ' ' + std::to_string(r.target) + ' ' +
           std::to_string(r.text.size()) + '\n' + r.text;
  return out;
}

void deserialize(const std::string& in, std::vector<HitRecord>& records) {
  std::size_t at = 0;
  while (at < in.size()) {
    const std::size_t end = in.find('\n', at);
    std::istringstream head(in.substr(at, end - at));
    HitRecord r;
    std::size_t length = 0;
    head >> r.query >> r.score >> r.target >> length;
    r.text = in.substr(end + 1, length);
    at = end + 1 + length;
    records.push_back(std::move(r));
  }
}

// Every process's hits on the root, each query's best `top` in the one-process order (score down, then database
// order); a world of one keeps its own, already in that order.
std::vector<HitRecord> merge_hits(const cudp::apps::MpiWorld& world, std::vector<HitRecord> mine,
                                  std::size_t top) {
  if (world.size() == 1) return mine;
  const std::vector<std::string> parts = world.gather(serialize(mine));
  std::vector<HitRecord> all;
  for (const std::string& part : parts) deserialize(part, all);
  std::sort(all.begin(), all.end(), [](const HitRecord& a, const HitRecord& b) {
    return a.query != b.query ? a.query < b.query : a.score != b.score ? a.score > b.score : a.target < b.target;
  });
  std::vector<HitRecord> kept;
  for (std::size_t i = 0, taken = 0; i < all.size(); ++i) {
    taken = i > 0 && all[i].query == all[i - 1].query ? taken + 1 : 0;
    if (taken < top) kept.push_back(std::move(all[i]));
  }
  return kept;
}

}  // namespace

int main(int argc, char** argv) {
  using clock = std::chrono::steady_clock;
  std::optional<cudp::apps::MpiWorld> world_holder;
  if (!cudp::apps::start_world(world_holder, argc, argv, "cudp-swsearch")) return 1;
  const cudp::apps::MpiWorld& world = *world_holder;
  cudp::apps::ProcessErrors errors(world, "cudp-swsearch");
  try {
    auto parsed = parse_args(argc, argv);
    if (!parsed) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    const Options& o = *parsed;
    // mpirun hands standard input to the first process alone.
    if (world.size() > 1 && (o.query == "-" || o.db == "-"))
      usage_error("under mpirun the query and the database are files, not standard input ('-')");
    const bool progress = isatty(STDERR_FILENO) && world.root();
    const auto& alphabet = cudp::bio::protein();
    auto t0 = clock::now();
    // Starting CUDA (the driver, the device's context) takes a few tenths of a second: do it while the inputs are
    // read.
    std::future<std::vector<int>> cuda_started;
    if (o.backend != "host")
      cuda_started = std::async(std::launch::async, swsearch::start_cuda, o.gpus, world.rank_on_node(), world.size());
    const int threads = o.threads > 0 ? o.threads : cudp::tiers::usable_cores();
    auto matrix = cudp::io::load_matrix(o.matrix, alphabet);
    // '-' is standard input, as ssearch36 and BLAST take it for the query; each input is opened and read once.
    // Under mpirun each process reads its shard of the database: a packed one reads that part of the file alone.
    const auto load = [&](const std::string& path, const cudp::io::DatabaseReadOptions& options) {
      return cudp::io::load_sequences(path == "-" ? "/dev/stdin" : path, alphabet, options,
                                      path == "-" ? "standard input" : "");
    };
    auto queries = load(o.query, {});
    cudp::io::DatabasePart part;
    cudp::io::DatabaseReadOptions db_options{threads};
    db_options.shard = world.rank();
    db_options.shards = world.size();
    db_options.part = &part;
    auto db = load(o.db, db_options);
    auto ka = cudp::bio::gapped_parameters(matrix.name, o.gap_open, o.gap_extend);
    auto t_read = clock::now();

    const std::vector<int> devices = cuda_started.valid() ? cuda_started.get() : std::vector<int>{};
    // Under mpirun the processes start their search together, once every one has read its shard and started CUDA:
    // a search started early shares the machine with the others' reading and CUDA starts.
    if (world.size() > 1 && !errors.checkpoint()) return 1;
    auto t_gpus = clock::now();  // CUDA's start, past what the reading hid: a cost of the program, not of the search
    const bool cuda = !devices.empty();
    const bool use_cuda = o.backend == "cuda" || (o.backend == "auto" && cuda);
    if (o.backend == "cuda" && !cuda) throw std::runtime_error("--backend cuda: no CUDA device found");
    cudp::ScoreStats report;
    cudp::recurrences::GapCosts gaps{o.gap_open, o.gap_extend};
    auto qv = cudp::engine::view_of(queries), dv = cudp::engine::view_of(db);
    auto table = swsearch::score_all(qv, dv, matrix, gaps, use_cuda ? cudp::Backend::Device : cudp::Backend::Host,
                                     threads, report, progress, devices);
    auto t_score = clock::now();

    const std::uint64_t db_residues = part.residues;  // of the whole database: E-values are the same in every shard
    // The top hits of every query, highest score first (ties in database order, so the output is deterministic);
    // their alignments come from the linear-space aligner (a forward and a reverse pass for the ends, then the box
    // between), run for all hits on all cores.
    struct Hit {
      std::size_t query, target;
      cudp::align::Alignment alignment;
    };
    std::vector<std::vector<std::size_t>> best(queries.size());  // per query, on all cores
    cudp::tiers::parallel_for(
        queries.size(), threads, [] { return 0; },
        [&](int, std::size_t q) {
          const auto& scores = table[q];
          std::vector<std::size_t> order(db.size());
          std::iota(order.begin(), order.end(), 0);
          const std::size_t k = std::min<std::size_t>(o.top, order.size());
          std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](std::size_t a, std::size_t b) {
            return scores[a] != scores[b] ? scores[a] > scores[b] : a < b;
          });
          order.resize(k);
          best[q] = std::move(order);
        });
    std::vector<Hit> hits;
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (const std::size_t t : best[q]) hits.push_back({q, t, {}});
    cudp::align::LinearSpaceOptions one_thread;  // the hits are the parallel items
    one_thread.threads = 1;
    cudp::tiers::parallel_for(
        hits.size(), o.threads, [] { return 0; },
        [&](int, std::size_t h) {
          Hit& hit = hits[h];
          hit.alignment = cudp::align::align_linear_space(
              cudp::recurrences::AlignMode::Local, queries.data(hit.query), static_cast<int>(queries.length(hit.query)),
              db.data(hit.target), static_cast<int>(db.length(hit.target)), matrix, gaps, one_thread);
        });

    std::vector<HitRecord> records;
    std::size_t next_hit = 0;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const auto& scores = table[q];
      for (; next_hit < hits.size() && hits[next_hit].query == q; ++next_hit) {
        const std::size_t t = hits[next_hit].target;
        const cudp::align::Alignment& a = hits[next_hit].alignment;
        if (a.score != scores[t])
          throw std::logic_error("internal error: aligning target " + db.names[t] + " gave " + std::to_string(a.score) +
                                 ", the search " + std::to_string(scores[t]));
        const bool empty = a.edits.empty();
        // 1-based inclusive coordinates; all 0 for an empty alignment.
        const long qs = empty ? 0 : a.query_begin + 1, qe = empty ? 0 : a.query_end;
        const long ts = empty ? 0 : a.target_begin + 1, te = empty ? 0 : a.target_end;
        const auto counts = cudp::align::counts_of(a, queries.data(q), static_cast<int>(queries.length(q)), db.data(t),
                                                   static_cast<int>(db.length(t)), matrix);
        char pident[16];
        std::snprintf(pident, sizeof pident, "%.3f", counts.length ? 100.0 * counts.identities / counts.length : 0.0);
        // The TSV and text formats print one decimal and %.3g; tabular rounds as BLAST+ does.
        std::string bits = "-", evalue = "-", blast_bits = "-", blast_evalue = "-";
        if (ka) {
          const double bit_score = cudp::bio::bit_score(scores[t], *ka);
          const double e_value = cudp::bio::evalue(scores[t], queries.length(q), db_residues, *ka);
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.1f", bit_score);
          bits = buf;
          evalue = format_evalue(e_value);
          blast_bits = cudp::apps::blast_bits(bit_score);
          blast_evalue = cudp::apps::blast_evalue(e_value);
        }
        const std::string cigar = o.alignments ? "\t" + (empty ? std::string("*") : cudp::align::cigar(a)) : "";
        std::ostringstream out;
        if (o.format == "tsv") {
          out << queries.names[q] << '\t' << db.names[t] << '\t' << scores[t] << '\t' << bits << '\t' << evalue << '\t'
              << qs << '\t' << qe << '\t' << ts << '\t' << te << '\t' << pident << '\t' << counts.length << '\t'
              << counts.mismatches << '\t' << counts.gap_opens << cigar << '\n';
        } else if (o.format == "tabular") {
          out << queries.names[q] << '\t' << db.names[t] << '\t' << pident << '\t' << counts.length << '\t'
              << counts.mismatches << '\t' << counts.gap_opens << '\t' << qs << '\t' << qe << '\t' << ts << '\t' << te
              << '\t' << blast_evalue << '\t' << blast_bits << cigar << '\n';
        } else {
          char line[160];
          std::snprintf(line, sizeof line, "  %5d  %6s  %11s  %5ld-%-7ld  %5ld-%-7ld  ", scores[t], bits.c_str(),
                        evalue.c_str(), qs, qe, ts, te);
          out << line << db.names[t] << '\n';
          if (o.alignments && !empty)
            out << pairwise_text(a, queries.data(q), db.data(t), matrix, alphabet, counts) << '\n';
        }
        records.push_back({q, scores[t], part.first + t, out.str()});
      }
    }

    // Every process got this far, or all stop here; then the first merges the hits and writes the outputs.
    if (!errors.all_well()) return 1;
    records = merge_hits(world, std::move(records), static_cast<std::size_t>(o.top));
    const std::uint64_t cells_searched = world.sum(report.cascade.cells);
    const std::uint64_t rescored_pairs = world.sum(report.cascade.rescored_overflow);
    // Under mpirun the search takes as long as its slowest process.
    const auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
    const double score_seconds = world.max(secs(t_gpus, t_score));
    const double start_seconds = world.max(secs(t_read, t_gpus));
    const double setup_seconds = world.max(report.setup_seconds);
    const double prepare_seconds = world.max(report.setup_phases.prepare);
    const double sort_seconds = world.max(report.setup_phases.sort);
    const double pack_seconds = world.max(report.setup_phases.pack);
    const double upload_seconds = world.max(report.setup_phases.upload);
    const double kernel_seconds = world.max(report.kernel_seconds);
    if (!world.root()) return 0;

    std::ostringstream out;
    if (o.format == "tsv")
      out << "#query\ttarget\tscore\tbits\tevalue\tqstart\tqend\ttstart\ttend\tpident\tlength\tmismatch\tgapopen"
          << (o.alignments ? "\tcigar\n" : "\n");
    std::size_t next_record = 0;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      if (o.format == "text")
        out << "Query: " << queries.names[q] << " (" << queries.length(q) << " aa)\n"
            << "  score    bits      E-value  q-range        t-range        target\n";
      for (; next_record < records.size() && records[next_record].query == q; ++next_record)
        out << records[next_record].text;
      if (o.format == "text") out << '\n';
    }
    auto t_end = clock::now();
    if (o.format == "text") {
      double cells = static_cast<double>(cells_searched);
      out << "# backend: " << report.where << (world.size() > 1 ? " (" + std::to_string(world.size()) + " processes)" : "")
          << "\n"
          << "# matrix " << matrix.name << ", gap open " << o.gap_open << ", extend " << o.gap_extend << "\n"
          << "# queries " << queries.size() << ", database " << part.sequences << " sequences, " << db_residues
          << " residues\n"
          << "# cells " << cells_searched << "; rescored after " << report.narrow_bits
          << "-bit overflow: " << rescored_pairs << " (query, target) pairs\n";
      char buf[256];
      std::snprintf(buf, sizeof buf, "# time: read %.3f s, ", secs(t0, t_read));
      out << buf;
      if (use_cuda) {
        std::snprintf(buf, sizeof buf, "CUDA started %.3f s after it, ", start_seconds);
        out << buf;
      }
      std::snprintf(buf, sizeof buf, "score %.3f s, report %.3f s; %.1f GCUPS (scoring wall time)", score_seconds,
                    secs(t_score, t_end), cells / score_seconds / 1e9);
      out << buf;
      if (kernel_seconds > 0) {
        std::snprintf(buf, sizeof buf,
                      ", %.1f GCUPS (kernels); database packed and uploaded in %.3f s (scorer prepared %.3f, sorted "
                      "%.3f, packed %.3f, uploaded %.3f)",
                      cells / kernel_seconds / 1e9, setup_seconds, prepare_seconds, sort_seconds, pack_seconds,
                      upload_seconds);
        out << buf;
      }
      out << "\n";
    }

    const std::string text = out.str();
    if (o.out.empty()) {
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else {
      cudp::io::write_outputs({{o.out, &text}});  // all or nothing; /dev/null and pipes are written in place
    }
    return 0;
  } catch (const std::invalid_argument& e) {
    return errors.fail(e.what(), 2);
  } catch (const std::exception& e) {
    return errors.fail(e.what(), 1);
  }
}
