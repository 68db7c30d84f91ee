// cudp-align's run, stage by stage: the inputs read and the scoring chosen, the jobs (pairs) planned and shared out
// among the processes of an MPI run, aligned on the GPU or the host and checked, the records formatted and written.
#include "run.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <cudp/align/alignment.hpp>
#include <cudp/align/linear_space.hpp>
#include <cudp/bio/alphabet.hpp>
#include <cudp/bio/karlin_altschul.hpp>
#include <cudp/io/error.hpp>
#include <cudp/io/fasta.hpp>
#include <cudp/io/matrix.hpp>
#include <cudp/io/output_files.hpp>
#include <cudp/recurrences/gotoh.hpp>
#include <cudp/host/host_cores.hpp>
#include <cudp/host/keep_freed_memory.hpp>
#include <cudp/host/parallel_for.hpp>

#include "backend.hpp"
#include "report.hpp"
#include "kit/gpu_choice.hpp"
#include "kit/input_files.hpp"
#include "kit/stage_times.hpp"


namespace align_app {
namespace {

using cudp::bio::Alphabet;
using cudp::bio::AlphabetKind;
using cudp::io::InputError;
using cudp::apps::InternalError;

struct SequenceFile {
  std::string path;
  cudp::io::SequenceSet set;
  std::vector<std::uint64_t> lines;  // header line of each record

  Sequence sequence(std::size_t i) const {
    return {set.names[i], set.data(i), static_cast<int>(set.length(i))};
  }
  std::string where(std::size_t i) const { return path + " line " + std::to_string(lines[i]); }
};

// A pipe or FIFO can be read only once, and --alphabet auto reads the start of each input before the real read:
// such an input is read whole into memory at its first use, and every later reader takes it from there.
// '-' is standard input.
std::unique_ptr<cudp::io::ChunkSource> open_input(const std::string& word) {
  static std::unordered_map<std::string, std::string> streams;
  const cudp::apps::InputFile input = cudp::apps::input_file(word);
  if (cudp::io::is_regular_file(input.path)) return std::make_unique<cudp::io::GzipFileSource>(input.path, input.name);
  auto it = streams.find(input.path);
  if (it == streams.end()) it = streams.emplace(input.path, cudp::io::read_file_text(input.path, input.name)).first;
  return std::make_unique<cudp::io::MemorySource>(it->second.data(), it->second.size());
}

// The reader refuses missing and empty files, empty sequences and letters outside the alphabet, naming the file
// and line.
SequenceFile read_sequences(const std::string& path, const Alphabet& alphabet) {
  SequenceFile f;
  f.path = cudp::apps::input_file(path).name;
  cudp::io::FastaReader reader(open_input(path), f.path, alphabet);
  cudp::io::FastaRecord record;
  while (reader.next(record)) {
    f.set.residues.insert(f.set.residues.end(), record.codes.begin(), record.codes.end());
    f.set.offsets.push_back(f.set.residues.size());
    f.set.names.push_back(record.name);
    f.set.descriptions.push_back(record.description);
    f.lines.push_back(record.line);
  }
  return f;
}

// --alphabet auto: the first records of each file (up to 10000 residues) are read with every letter kept apart;
// DNA when at least 90% of them are A, C, G, T, U or N.
struct Sample {
  long residues = 0, nucleotides = 0;
  double fraction() const { return residues ? static_cast<double>(nucleotides) / static_cast<double>(residues) : 0; }
  bool dna() const { return residues > 0 && fraction() >= 0.9; }
};

Sample sample_letters(const std::string& path) {
  static constexpr const char* letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ*";
  static const Alphabet any{AlphabetKind::Protein, "sequence", letters, 27,
                            cudp::bio::make_code_table(letters, "", "")};
  Sample s;
  try {
    cudp::io::FastaReader reader(open_input(path), cudp::apps::input_file(path).name, any);
    cudp::io::FastaRecord record;
    for (int k = 0; k < 16 && s.residues < 10000 && reader.next(record); ++k) {
      for (std::uint8_t c : record.codes) {
        ++s.residues;
        s.nucleotides += std::string_view("ACGTUN").find(letters[c]) != std::string_view::npos;
      }
    }
  } catch (const InputError&) {
    // Unreadable or malformed: the real read reports it, with the alphabet chosen from the other file.
  }
  return s;
}

AlphabetKind choose_alphabet(const Options& o) {
  if (o.alphabet == "protein") return AlphabetKind::Protein;
  if (o.alphabet == "dna") return AlphabetKind::Dna;
  const Sample q = sample_letters(o.query), t = sample_letters(o.target);
  const auto describe = [](const Sample& s) {
    return std::string(s.dna() ? "DNA" : "protein") + " (" + std::to_string(s.nucleotides) + " of the first " +
           std::to_string(s.residues) + " letters are A, C, G, T, U or N)";
  };
  if (q.residues > 0 && t.residues > 0 && q.dna() != t.dna())
    throw InputError(o.query + " looks like " + describe(q) + " but " + o.target + " like " + describe(t) +
                     "; give --alphabet");
  Sample both{q.residues + t.residues, q.nucleotides + t.nucleotides};
  const bool dna = both.dna();
  // Uncertain: little to go on, or close to the threshold either way.
  if (both.residues > 0 && (both.residues < 50 || (both.fraction() > 0.7 && both.fraction() < 0.97)))
    std::fprintf(stderr, "cudp-align: --alphabet auto: guessed %s; give --alphabet to choose\n",
                 describe(both).c_str());
  return dna ? AlphabetKind::Dna : AlphabetKind::Protein;
}

struct Scoring {
  cudp::io::SubstitutionMatrix matrix;
  std::string name;  // as printed
  GapCosts gaps;
};

Scoring choose_scoring(const Options& o, AlphabetKind kind, const std::string& sequences) {
  Scoring s;
  const bool dna = kind == AlphabetKind::Dna;
  const Alphabet& alphabet = dna ? cudp::bio::dna_iupac() : cudp::bio::protein();
  if ((o.match || o.mismatch) && !dna)
    throw InputError("--match/--mismatch score DNA, but the sequences (" + sequences +
                     ") are protein; give a --matrix, or --alphabet dna");
  if (dna && o.matrix.empty()) {
    const int match = o.match.value_or(2), mismatch = o.mismatch.value_or(-3);
    // Identical bases score match; every other pair, and any pair with an ambiguity code, mismatch.
    s.matrix = {"match/mismatch", &alphabet, alphabet.size,
                std::vector<int>(static_cast<std::size_t>(alphabet.size * alphabet.size), mismatch)};
    for (const char base : {'A', 'C', 'G', 'T'}) {
      const auto c = static_cast<std::size_t>(alphabet.encode(base));
      s.matrix.scores[c * static_cast<std::size_t>(alphabet.size) + c] = match;
    }
    s.name = "match/mismatch " + std::string(match > 0 ? "+" : "") + std::to_string(match) + "/" +
             std::to_string(mismatch);
  } else {
    const std::string name = o.matrix.empty() ? "BLOSUM62" : o.matrix;
    try {
      s.matrix = cudp::io::load_matrix(name, alphabet);
    } catch (const InputError& e) {
      const std::string what = e.what();
      if (what.find("cannot open") != std::string::npos) throw;
      throw InputError(what + " (the sequences, " + sequences + ", are " + (dna ? "DNA" : "protein") + ")");
    }
    if (!dna) {
      // Every nucleotide letter is also a protein letter, so a DNA matrix file parses as a sparse protein one: refuse
      // a file whose letters are all IUPAC nucleotide codes.
      bool nucleotide_file = false;
      try {
        cudp::io::load_matrix(name, cudp::bio::dna_iupac());
        nucleotide_file = true;
      } catch (const InputError&) {
      }
      if (nucleotide_file)
        throw InputError(name + ": a DNA matrix (its letters are all nucleotide codes), but the sequences (" +
                         sequences + ") are protein");
    }
    s.name = s.matrix.name;
  }
  s.gaps.open = o.gap_open.value_or(dna ? 5 : 11);
  s.gaps.extend = o.gap_extend.value_or(dna ? 2 : 1);
  return s;
}

struct Job {
  std::size_t query, target;
  Alignment alignment;
  std::string error;
};

AlignMode mode_of(const std::string& mode) {
  return mode == "local" ? AlignMode::Local : mode == "semiglobal" ? AlignMode::SemiGlobal : AlignMode::Global;
}

// Progress on a terminal, for runs longer than half a second: pairs done, cells, GCUPS.
class Progress {
 public:
  Progress(bool on, std::size_t pairs) : on_(on), pairs_(pairs), start_(clock::now()), last_(start_) {}
  void done(double cells) {
    if (!on_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    cells_ += cells;
    partial_ = 0;
    maybe_print();
  }
  // Part of the pair being aligned (pairs aligned one at a time only): fraction of its cells done.
  void within(double fraction, double cells) {
    if (!on_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    partial_ = fraction * cells;
    maybe_print();
  }
  void finish() {
    if (!printed_) return;
    print(clock::now());
    std::fputc('\n', stderr);
  }

 private:
  using clock = std::chrono::steady_clock;
  void maybe_print() {
    const auto now = clock::now();
    if (now - start_ < std::chrono::milliseconds(500) || now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    print(now);
  }
  void print(clock::time_point now) {
    const double secs = std::chrono::duration<double>(now - start_).count(), cells = cells_ + partial_;
    std::fprintf(stderr, "\rcudp-align: pair %zu/%zu, %.3g cells, %.2f GCUPS ", done_, pairs_, cells,
                 secs > 0 ? cells / secs / 1e9 : 0.0);
    printed_ = true;
  }
  bool on_;
  std::size_t pairs_, done_ = 0;
  double cells_ = 0, partial_ = 0;
  clock::time_point start_, last_;
  bool printed_ = false;
  std::mutex mutex_;
};

// Under mpirun, process `rank` of `size` aligns the jobs [first, last) of its part: consecutive jobs of about the same
// cells each, cut only where a query's jobs end, so that a query's SAM records (one primary among them) stay in one
// process. A process may get no jobs.
std::pair<std::size_t, std::size_t> jobs_of_process(const std::vector<double>& job_cells,
                                                    const std::vector<std::size_t>& job_query, int rank, int size) {
  double total = 0;
  for (const double c : job_cells) total += c;
  // The first job of each process's part: the first query boundary at or past its share of the cells.
  const auto start_of = [&](int r) {
    if (r == 0) return std::size_t{0};
    if (r >= size) return job_cells.size();
    const double share = total * r / size;
    double before = 0;
    for (std::size_t k = 0; k < job_cells.size(); ++k) {
      if (before >= share && (k == 0 || job_query[k] != job_query[k - 1])) return k;
      before += job_cells[k];
    }
    return job_cells.size();
  };
  return {start_of(rank), std::max(start_of(rank), start_of(rank + 1))};
}

// mpirun hands standard input to the first process alone, and a pipe can be read by one process only.
void require_regular_file(const std::string& path, const char* option) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    throw std::invalid_argument(std::string("under mpirun ") + option + " must be a regular file, not '" + path + "'");
}


struct Inputs {
  const Alphabet* alphabet;
  Scoring scoring;
  SequenceFile queries, targets;
};

// The alphabet (--alphabet, or guessed), the scoring and both files, read and checked.
Inputs load_inputs(const Options& o) {
  const AlphabetKind kind = choose_alphabet(o);
  const Alphabet* alphabet = &(kind == AlphabetKind::Dna ? cudp::bio::dna_iupac() : cudp::bio::protein());
  const Scoring scoring = choose_scoring(o, kind, o.query + ", " + o.target);
  SequenceFile queries = read_sequences(o.query, *alphabet);
  SequenceFile targets = read_sequences(o.target, *alphabet);
  return {alphabet, scoring, std::move(queries), std::move(targets)};
}

// The pairs to align (--pairs), checked to fit the 32-bit lanes (and, for SAM, the targets' names distinct); under
// mpirun this process's part of them.
std::vector<Job> plan_jobs(const Options& o, const Inputs& in, const cudp::apps::MpiWorld& world) {
  std::vector<Job> jobs;
  if (o.pairs == "one-to-one") {
    if (in.queries.set.size() != in.targets.set.size())
      throw InputError("--pairs one-to-one: " + o.query + " has " + std::to_string(in.queries.set.size()) +
                       " sequences but " + o.target + " has " + std::to_string(in.targets.set.size()) +
                       "; give --pairs all to align every query with every target");
    for (std::size_t i = 0; i < in.queries.set.size(); ++i) jobs.push_back({i, i, {}, {}});
  } else {
    for (std::size_t q = 0; q < in.queries.set.size(); ++q)
      for (std::size_t t = 0; t < in.targets.set.size(); ++t) jobs.push_back({q, t, {}, {}});
  }

  // Every score, gap sum and intermediate value of every pair must stay inside 32 bits, the lanes of the passes:
  // the exact s32 lane's bound (the largest substitution score times the shorter length, the all-gap path below).
  const int max_score = in.scoring.matrix.max_score(), min_score = in.scoring.matrix.min_score();
  for (const Job& j : jobs) {
    const Sequence q = in.queries.sequence(j.query), t = in.targets.sequence(j.target);
    if (!cudp::align::fits_in_32_bits(q.length, t.length, max_score, min_score, in.scoring.gaps))
      throw InputError("query '" + q.name + "' (" + in.queries.where(j.query) + ", " + std::to_string(q.length) +
                       " residues) with target '" + t.name + "' (" + in.targets.where(j.target) + ", " +
                       std::to_string(t.length) + " residues): scores could pass the 32-bit range (largest "
                       "substitution score " + std::to_string(max_score) + "); split the sequences");
  }
  if (o.format == "sam") {
    std::unordered_map<std::string, std::size_t> first;
    for (std::size_t t = 0; t < in.targets.set.size(); ++t) {
      const auto [it, fresh] = first.emplace(in.targets.set.names[t], t);
      if (!fresh)
        throw InputError(cudp::io::format_error(o.target, in.targets.lines[t],
                                                "target name '" + in.targets.set.names[t] + "' was already used on line " +
                                                    std::to_string(in.targets.lines[it->second]) +
                                                    "; SAM needs distinct reference names"));
    }
  }

  // Under mpirun each process aligns its part of the jobs, and the first writes every record in job order.
  if (world.size() > 1) {
    std::vector<double> job_cells;
    std::vector<std::size_t> job_query;
    for (const Job& j : jobs) {
      job_cells.push_back(static_cast<double>(in.queries.set.length(j.query)) * in.targets.set.length(j.target));
      job_query.push_back(j.query);
    }
    const auto [first, last] = jobs_of_process(job_cells, job_query, world.rank(), world.size());
    jobs = std::vector<Job>(jobs.begin() + static_cast<std::ptrdiff_t>(first),
                            jobs.begin() + static_cast<std::ptrdiff_t>(last));
  }
  return jobs;
}

// Every job aligned (or scored, for --format score) and checked; `stage` advances through the stage times.
void align_jobs(const Options& o, const Inputs& in, AlignBackend backend, AlignMode mode, int threads,
                const cudp::apps::MpiWorld& world, std::vector<Job>& jobs, cudp::apps::StageTimes& times,
                cudp::apps::StageTimes::clock::time_point& stage) {
  // The host: many pairs one per thread; fewer pairs than threads one at a time, each with all the threads. The
  // GPU: every pair in one batch.
  const bool by_pair = jobs.size() >= static_cast<std::size_t>(threads) || backend == AlignBackend::Device;
  Progress progress(cudp::apps::show_progress(world), jobs.size());
  // The library has rescored every alignment on the host (align_linear_space, align_batch_linear_space): a pair
  // whose alignment failed that check carries the library's message, named here.
  const auto name_error = [&](Job& j) {
    if (j.error.empty()) return;
    const Sequence q = in.queries.sequence(j.query), t = in.targets.sequence(j.target);
    j.error = "internal error: query '" + q.name + "' with target '" + t.name + "': " + j.error;
  };
  stage = times.add("checks", stage);
  // The pairs as one batch, for the paths that take them all at once.
  std::vector<cudp::align::SequenceView> qv, tv;
  double cells = 0;
  for (const Job& j : jobs) {
    const Sequence q = in.queries.sequence(j.query), t = in.targets.sequence(j.target);
    qv.push_back({q.codes, q.length});
    tv.push_back({t.codes, t.length});
    cells += static_cast<double>(q.length) * t.length;
  }
  if (jobs.empty()) {
    // Under mpirun a process may have no pairs: its part of the records is empty.
  } else if (o.format == "score") {
    // Scores alone: no alignment to find, so one level of passes a pair (cudp::align::global_scores, or the
    // end-locating pass of cudp::align::located_scores).
    std::vector<long> scores;
    try {
      if (backend == AlignBackend::Device) {
        scores = scores_on_gpu(mode, qv, tv, in.scoring.matrix, in.scoring.gaps, threads);
      } else {
        cudp::align::LinearSpaceOptions options;
        options.threads = threads;
        const cudp::align::PairBatch batch(qv, tv);
        if (mode == AlignMode::Global)
          scores = cudp::align::global_scores(
              batch, in.scoring.matrix, in.scoring.gaps, options,
              [&](const std::vector<cudp::align::RowPass>& level, const cudp::align::SequencePair& pair,
                  cudp::align::RowPassOutput out) {
                cudp::align::run_row_passes_on_host(level, pair, in.scoring.matrix, in.scoring.gaps, out, threads);
              });
        else
          scores = cudp::align::located_scores(
              mode, batch, in.scoring.matrix, in.scoring.gaps, options,
              [&](const std::vector<cudp::align::RowPass>& ends, AlignMode pass_mode, cudp::align::CellScope scope,
                  const cudp::align::SequencePair& pair, cudp::tiers::CellEnd* out) {
                cudp::align::find_best_cells_on_host(ends, pass_mode, scope, pair, in.scoring.matrix, in.scoring.gaps, out,
                                                     threads);
              });
      }
    } catch (const std::logic_error& e) {  // the library's own checks: a bug, as below
      throw InternalError(std::string("internal error: ") + e.what());
    }
    stage = times.add("scores (library)", stage);
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      jobs[k].alignment.score = scores[k];
      progress.done(static_cast<double>(qv[k].length) * tv[k].length);
    }
  } else if (backend == AlignBackend::Device) {
    std::vector<Alignment> all;
    try {
      all = align_batch_on_gpu(mode, qv, tv, in.scoring.matrix, in.scoring.gaps, threads,
                               [&](double fraction) { progress.within(std::min(fraction, 1.0), cells); });
    } catch (const std::logic_error& e) {
      // The library's own checks (an alignment that does not rescore, a pair past 32 bits that the check above
      // let through): a bug, status 3, as on the host path. CUDA failures stay runtime errors (status 1).
      throw InternalError(std::string("internal error: ") + e.what());
    }
    stage = times.add("align (library)", stage);
    cudp::host::parallel_for(jobs.size(), threads, [] { return 0; }, [&](int, std::size_t k) {
      jobs[k].alignment = std::move(all[k]);
      progress.done(static_cast<double>(qv[k].length) * tv[k].length);
    });
  } else {
    const auto run = [&](Job& j, int pair_threads) {
      const Sequence q = in.queries.sequence(j.query), t = in.targets.sequence(j.target);
      const double cells = static_cast<double>(q.length) * t.length;
      std::function<void(double)> within;
      if (!by_pair) within = [&](double fraction) { progress.within(std::min(fraction, 1.0), cells); };
      try {
        j.alignment = align_pair_on_host(mode, q.codes, q.length, t.codes, t.length, in.scoring.matrix, in.scoring.gaps,
                                         pair_threads, within);
      } catch (const std::exception& e) {
        j.error = e.what();
      }
      name_error(j);
      progress.done(cells);
    };
    if (by_pair)
      cudp::host::parallel_for(jobs.size(), threads, [] { return 0; }, [&](int, std::size_t i) { run(jobs[i], 1); });
    else
      for (Job& j : jobs) run(j, threads);
  }
  progress.finish();
  for (const Job& j : jobs)
    if (!j.error.empty()) throw InternalError(j.error);
  stage = times.add("align/verify", stage);

}

// The run's output: the header, every process's records in job order (gathered on the first), the footer.
std::string format_output(const Options& o, const Inputs& in, AlignMode mode, int threads,
                          const cudp::apps::MpiWorld& world, const std::vector<Job>& jobs) {
  ReportContext ctx{in.alphabet, &in.scoring.matrix, in.scoring.name, in.scoring.gaps, mode};
  // The records of this process's jobs, and what comes before and after every record of the run.
  std::ostringstream head, tail;
  std::string body;  // the records, in job order
  // The records formatted in runs of consecutive jobs, one stream a run, on all threads, then joined in job order
  // into one buffer sized once (100,000 SAM records are 55 MB: one stream grown record by record and copied out
  // cost more than the formatting, and a stream and a string per record took a third longer than a run's stream).
  const auto write_records = [&](auto write_record) {
    const std::size_t runs = std::min<std::size_t>(jobs.size(), 64 * static_cast<std::size_t>(std::max(threads, 1)));
    std::vector<std::string> parts(runs);
    cudp::host::parallel_for(runs, threads, [] { return 0; }, [&](int, std::size_t r) {
      std::ostringstream part;
      for (std::size_t k = jobs.size() * r / runs; k < jobs.size() * (r + 1) / runs; ++k) write_record(part, k);
      parts[r] = part.str();
    });
    std::size_t bytes = 0;
    for (const std::string& p : parts) bytes += p.size();
    body.reserve(bytes);
    for (const std::string& p : parts) body += p;
  };
  if (o.format == "pair") {
    head << pair_report_header(o.args, o.out.empty() ? "stdout" : o.out) << "\n";
    write_records([&](std::ostream& record, std::size_t k) {
      write_pair(record, ctx, in.queries.sequence(jobs[k].query), in.targets.sequence(jobs[k].target), jobs[k].alignment);
    });
    tail << pair_report_footer();
  } else if (o.format == "sam") {
    std::vector<Sequence> refs;
    for (std::size_t t = 0; t < in.targets.set.size(); ++t) refs.push_back(in.targets.sequence(t));
    write_sam_header(head, refs, o.args);
    // A query's record against its best target (the first of equal scores) is primary, the others secondary.
    std::vector<long> best(in.queries.set.size(), 0);
    std::vector<std::size_t> best_job(in.queries.set.size(), jobs.size());
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      const std::size_t q = jobs[k].query;
      if (best_job[q] == jobs.size() || jobs[k].alignment.score > best[q]) {
        best[q] = jobs[k].alignment.score;
        best_job[q] = k;
      }
    }
    write_records([&](std::ostream& record, std::size_t k) {
      write_sam(record, ctx, in.queries.sequence(jobs[k].query), in.targets.sequence(jobs[k].target), jobs[k].alignment,
                best_job[jobs[k].query] != k);
    });
  } else if (o.format == "tabular") {
    const auto ka = cudp::bio::gapped_parameters(in.scoring.matrix.name, in.scoring.gaps.open, in.scoring.gaps.extend);
    write_records([&](std::ostream& record, std::size_t k) {
      write_tabular(record, ctx, in.queries.sequence(jobs[k].query), in.targets.sequence(jobs[k].target),
                    jobs[k].alignment, ka);
    });
  } else {
    write_records([&](std::ostream& record, std::size_t k) {
      write_score(record, in.queries.sequence(jobs[k].query), in.targets.sequence(jobs[k].target), jobs[k].alignment);
    });
  }

  std::string text = head.str();
  for (const std::string& part : world.gather(body)) text += part;  // every process's records, in job order
  text += tail.str();
  return text;
}

}  // namespace

int run(const Options& o, const cudp::apps::ToolContext& tool) {
  const cudp::apps::MpiWorld& world = tool.world;
  if (world.size() > 1) {
    require_regular_file(o.query, "--query");
    require_regular_file(o.target, "--target");
  }
  if (world.root() && !o.out.empty()) cudp::io::check_writable(o.out);  // before the work, which may take hours
  cudp::apps::StageTimes& times = cudp::apps::StageTimes::global();
  auto stage = cudp::apps::StageTimes::clock::now();
  bool no_gpu = false;
  const AlignBackend backend = choose_backend(o.backend, cells_bound(o.query, o.target), &no_gpu);
  if (backend == AlignBackend::Device) start_gpu(world.rank_on_node(), world.size());
  stage = times.add("backend", stage);
  const AlignMode mode = mode_of(o.mode);
  const Inputs in = load_inputs(o);
  stage = times.add("read", stage);
  std::vector<Job> jobs = plan_jobs(o, in, world);
  if (!tool.errors.all_well()) return 1;  // a process could not read the inputs or start its backend
  if (no_gpu) cudp::apps::note_host_fallback();
  const int threads = o.threads > 0 ? o.threads : cudp::host::usable_cores();
  align_jobs(o, in, backend, mode, threads, world, jobs, times, stage);
  const std::string text = format_output(o, in, mode, threads, world, jobs);
  if (!world.root()) return 0;
  stage = times.add("format", stage);
  if (o.out.empty())
    std::fwrite(text.data(), 1, text.size(), stdout);
  else
    cudp::io::write_outputs({{o.out, &text}});  // all or nothing; /dev/null and pipes are written in place
  times.add("write", stage);
  times.print("cudp-align");
  return 0;
}

}  // namespace align_app
