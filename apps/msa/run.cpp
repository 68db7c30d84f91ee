// cudp-msa's run: the outputs checked, the sequences read, the pairwise distances and guide tree made (or the guide
// tree read, --usetree), the progressive alignment, then the alignment and the .dnd written whole.
#include "run.hpp"

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cudp/io/error.hpp>
#include <cudp/io/fasta.hpp>
#include <cudp/io/output_files.hpp>
#include <cudp/msa/alignment_formats.hpp>
#include <cudp/msa/clustal_distances.hpp>
#include <cudp/msa/clustal_matrix_file.hpp>
#include <cudp/msa/clustal_output.hpp>
#include <cudp/msa/clustal_parameters.hpp>
#include <cudp/msa/clustal_sequences.hpp>
#include <cudp/msa/guide_tree.hpp>
#include <cudp/msa/progressive_alignment.hpp>
#include <cudp/msa/rooted_guide_tree.hpp>
#include <cudp/msa/sequence_weights.hpp>

#include "device.hpp"
#include "kit/gpu_choice.hpp"
#include "kit/input_files.hpp"
#include "kit/notes.hpp"
#include "kit/stage_times.hpp"

namespace msa_app {
namespace {

using cudp::io::InputError;
namespace msa = cudp::msa;

msa::ProteinSeries protein_series(const std::string& name) {
  return name == "gonnet"   ? msa::ProteinSeries::gonnet
         : name == "blosum" ? msa::ProteinSeries::blosum
         : name == "pam"    ? msa::ProteinSeries::pam
         : name == "id"     ? msa::ProteinSeries::identity
                            : msa::ProteinSeries::user;
}

msa::PairwiseProteinMatrix pairwise_protein_matrix(const std::string& name) {
  return name == "gonnet"   ? msa::PairwiseProteinMatrix::gonnet
         : name == "blosum" ? msa::PairwiseProteinMatrix::blosum
         : name == "pam"    ? msa::PairwiseProteinMatrix::pam
         : name == "id"     ? msa::PairwiseProteinMatrix::identity
                            : msa::PairwiseProteinMatrix::user;
}

// The matrix files the options name, read and checked before any work, as clustalw reads them while it parses its
// command line (so a bad one stops it whatever the input's type).
struct MatrixFiles {
  msa::ClustalMatrixSeries matrix;  // -MATRIX=file
  msa::ClustalTriangle pw_matrix;   // -PWMATRIX=file
};

// A matrix file's triangle read, or an error saying what the value was taken for.
template <typename Read>
auto read_matrix_file(const std::string& option, const std::string& path, Read read) {
  try {
    return read(path);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (" + option + ": not a built-in matrix name, so a matrix file)");
  }
}

// Says so when a letter clustalw does not know comes before a residue letter among the first 25 (clustalw reads no
// further): the rows after it then take shifted values (clustal_matrix_file.hpp).
void note_shifted_rows(const msa::ClustalTriangle& m) {
  int unknown = -1;
  for (int i = 0; i <= msa::clustal_max_residue && i < static_cast<int>(m.letters.size()); ++i) {
    if (m.codes.code[i] < 0 && unknown < 0) unknown = i;
    if (m.codes.code[i] >= 0 && unknown >= 0) {
      const bool one = m.unknown_letters.size() == 1;
      cudp::apps::note(m.name + (one ? ": letter " : ": letters ") + m.unknown_letters +
                       (one ? " is not a residue" : " are not residues") + " to clustalw; as in clustalw 2.1, " +
                       (one ? "it shifts" : "each shifts") + " the rows after it (a row takes the values of the one "
                       "before it): delete " + (one ? "its row and column" : "their rows and columns") +
                       " for the matrix as written (docs/msa.md)");
      return;
    }
  }
}

MatrixFiles read_matrix_files(const Options& o) {
  MatrixFiles files;
  if (!builtin_matrix(o.matrix, false)) {
    files.matrix = read_matrix_file("-MATRIX", o.matrix, msa::read_clustal_matrix_series);
    for (const auto& member : files.matrix.members) note_shifted_rows(member.matrix);
  }
  if (!builtin_matrix(o.pw_matrix, false)) {
    files.pw_matrix = read_matrix_file("-PWMATRIX", o.pw_matrix, msa::read_clustal_matrix);
    note_shifted_rows(files.pw_matrix);
  }
  for (const auto& [option, path] : {std::pair{"-DNAMATRIX", &o.dna_matrix}, {"-PWDNAMATRIX", &o.pw_dna_matrix}}) {
    if (builtin_matrix(*path, true)) continue;
    read_matrix_file(option, *path, msa::read_clustal_matrix);
    cudp::apps::note(std::string(option) + "=" + *path + ": read and checked, then not used, as by clustalw 2.1, "
                     "which aligns DNA with its IUB matrix whatever file is given (docs/msa.md)");
  }
  return files;
}

// The progressive stage's settings: ClustalW's defaults for the sequence type, then the options.
msa::ClustalParameters progressive_settings(const Options& o, bool dna, const MatrixFiles& files) {
  msa::ClustalParameters p;
  p.dna = dna;
  if (o.gap_open) (dna ? p.dna_gap_open : p.protein_gap_open) = *o.gap_open;
  if (o.gap_extend) (dna ? p.dna_gap_extend : p.protein_gap_extend) = *o.gap_extend;
  p.protein_series = protein_series(o.matrix);
  if (p.protein_series == msa::ProteinSeries::user) p.user_matrix = files.matrix;
  p.dna_matrix = o.dna_matrix == "clustalw" ? msa::DnaMatrix::clustalw : msa::DnaMatrix::iub;
  if (o.transition_weight) p.transition_weight = *o.transition_weight;
  if (o.gap_distance) p.gap_distance = *o.gap_distance;
  if (o.maxdiv) p.divergence_cutoff = *o.maxdiv;
  if (o.hgap_residues) {
    p.hydrophilic_residues.clear();
    for (const char c : *o.hgap_residues) p.hydrophilic_residues += static_cast<char>(std::toupper(c));
  }
  p.no_hydrophilic_gaps = o.no_hgap;
  p.no_residue_gaps = o.no_pgap;
  p.no_variable_gaps = !o.variable_gaps;  // clustalw 2.1's -NOVGAP turns the variable-zone penalties on
  p.negative_matrix = o.negative;
  if (o.end_gaps) p.use_end_gaps = false;  // clustalw 2.1's -ENDGAPS: off, as it is by default; nothing else
  p.no_weights = o.no_weights;
  p.output_order = o.output_order == "input" ? msa::OutputOrder::input : msa::OutputOrder::aligned;
  return p;
}

// The pairwise stage's settings: ClustalW's defaults for the sequence type, then the options.
msa::PairwiseDistanceSettings pairwise_settings(const Options& o, bool dna, const MatrixFiles& files) {
  auto s = msa::PairwiseDistanceSettings::defaults(dna, o.quicktree);
  s.full.protein_matrix = pairwise_protein_matrix(o.pw_matrix);
  if (s.full.protein_matrix == msa::PairwiseProteinMatrix::user) s.full.user_matrix = files.pw_matrix;
  s.full.dna_matrix = o.pw_dna_matrix == "clustalw" ? msa::PairwiseDnaMatrix::clustalw : msa::PairwiseDnaMatrix::iub;
  if (o.pw_gap_open) s.full.gap_open = *o.pw_gap_open;
  if (o.pw_gap_extend) s.full.gap_extend = *o.pw_gap_extend;
  if (o.transition_weight) s.full.transition_weight = *o.transition_weight;
  s.ktuple.percent = !o.score_absolute;
  msa::apply_clustal_ktuple_options(s.ktuple, o.ktuple, o.pairgap, o.topdiags, o.window);
  return s;
}

// The input's sequences as clustalw reads them, with errors that name the file and line.
msa::ClustalSequences read_sequences(const cudp::apps::InputFile& file) {
  const std::string text = cudp::io::read_file_text(file.path, file.name);
  std::size_t line = 1, at = 0;
  while (at < text.size() && (text[at] == '\n' || text[at] == '\r' || text[at] == ' ' || text[at] == '\t'))
    line += text[at++] == '\n';
  if (at == text.size()) throw InputError(file.name + ": no sequences (the input is empty)");
  if (text[at] != '>')
    throw InputError(file.name + ":" + std::to_string(line) +
                     ": not FASTA (cudp-msa reads FASTA; a header line starting with '>' expected)");
  msa::ClustalSequences seqs = msa::parse_clustal_fasta(text, file.name);
  if (seqs.size() < 2)
    throw InputError(file.name + ": one sequence ('" + seqs.names[0] + "'); a multiple alignment needs two or more");
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    if (seqs.names[i].empty()) throw InputError(file.name + ": sequence " + std::to_string(i + 1) + " has no name");
    for (std::size_t j = 0; j < i; ++j)
      if (seqs.names[j] == seqs.names[i])
        throw InputError(file.name + ": sequences " + std::to_string(j + 1) + " and " + std::to_string(i + 1) +
                         " have the same name '" + seqs.names[i] + "'");
  }
  return seqs;
}

// A stage's progress on a terminal: "what: k of n units" rewritten in place twice a second from a thread of its own
// while the stage runs, then the last count and a newline.
class Progress {
 public:
  Progress(bool on, std::size_t total, std::string what, std::string units)
      : total_(total), what_(std::move(what)), units_(std::move(units)) {
    if (on) thread_ = std::thread([this] { watch(); });
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() { stop(); }
  std::atomic<std::size_t>* counter() { return &done_; }
  void stop() {
    if (!thread_.joinable()) return;
    finished_ = true;
    thread_.join();
  }

 private:
  void watch() {
    for (int tick = 0; !finished_; ++tick) {
      if (tick % 10 == 0) print("");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    print("\n");
  }
  void print(const char* end) const {
    std::fprintf(stderr, "\rcudp-msa: %s: %zu of %zu %s%s", what_.c_str(), done_.load(), total_, units_.c_str(), end);
  }
  std::size_t total_;
  std::string what_, units_;
  std::atomic<std::size_t> done_{0};
  std::atomic<bool> finished_{false};
  std::thread thread_;
};

// Below about this many cells of full pairwise alignments (every pair's length x length) a run is faster on the
// host's threads: the GPU path starts at about 0.3 s (its context, its buffers), in which 16 host cores align about
// 1e9 cells of ClustalW's pairs (3.1 Gcells/s on 2,000 simulated proteins of 100-500 residues, bench/RESULTS.md).
constexpr double kHostBelowCells = 1e9;

double pairwise_cells(const std::vector<std::vector<int>>& residues) {
  double sum = 0, squares = 0;
  for (const auto& r : residues) {
    sum += static_cast<double>(r.size());
    squares += static_cast<double>(r.size()) * static_cast<double>(r.size());
  }
  return (sum * sum - squares) / 2;
}

// Where the full pairwise alignments run: --backend cuda insists on the GPU (checked before any work), auto takes
// it for a run of full alignments large enough to gain from it. The k-tuple distances (--quicktree) and the
// progressive stage run on the host.
bool gpu_requested(const Options& o) {
  if (o.backend != "cuda") return false;
  if (!gpu_available())
    throw std::runtime_error(std::string("--backend cuda: ") + (cudp::apps::kBuiltWithCuda
                                                                    ? "no CUDA device found"
                                                                    : "this build has no CUDA backend"));
  return true;
}

// Hands freed memory back to the system: the distance matrix and neighbour-joining's lists (16 bytes a pair at
// the peak) are freed before the progressive stage, but the allocator would keep much of the lists' memory.
void release_freed_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

bool pairwise_on_gpu(const Options& o, bool requested, const msa::ClustalSequences& seqs) {
  if (o.quicktree || o.backend == "host") return false;
  if (requested) return true;
  if (pairwise_cells(seqs.residues) < kHostBelowCells) return false;
  if (gpu_available()) return true;
  cudp::apps::note_host_fallback();
  return false;
}

}  // namespace

int run(const Options& o, const cudp::apps::ToolContext& tool) {
  const bool progress = cudp::apps::show_progress(tool.world) && !o.quiet;
  const auto say = [progress](const std::string& line) {
    if (progress) std::fprintf(stderr, "cudp-msa: %s\n", line.c_str());
  };
  const bool gpu = gpu_requested(o);

  // The outputs: as given, else clustalw's names beside the input (clustalw style), else standard output.
  const Format format = format_named(o.format);
  std::string out = o.out, tree_out = o.guide_tree_out;
  if (o.clustalw_style && o.input != "-") {
    if (out.empty() && !o.guide_tree_only) out = clustalw_output_name(o.input, format.extension);
    if (tree_out.empty() && o.use_tree.empty()) tree_out = clustalw_output_name(o.input, "dnd");
  }
  if (o.guide_tree_only && !out.empty()) {
    cudp::apps::note("-NEWTREE without -ALIGN makes the guide tree only, as clustalw: " + out + " is not written");
    out.clear();
  }
  for (const std::string* path : {&out, &tree_out})  // before the work
    if (!path->empty()) cudp::io::check_writable(*path);
  const MatrixFiles matrix_files = read_matrix_files(o);

  auto& times = cudp::apps::StageTimes::global();
  auto since = cudp::apps::StageTimes::clock::now();
  const cudp::apps::InputFile input = cudp::apps::input_file(o.input);
  msa::ClustalSequences seqs = read_sequences(input);
  if (o.type != "auto") seqs.dna = o.type == "dna";
  const std::size_t n = seqs.size();
  say(std::to_string(n) + (seqs.dna ? " DNA" : " protein") + " sequences from " + input.name);
  const msa::ClustalParameters p = progressive_settings(o, seqs.dna, matrix_files);
  since = times.add("read", since);

  msa::MultipleAlignment alignment;
  std::string dnd;
  if (!o.use_tree.empty()) {
    const cudp::apps::InputFile tree_file = cudp::apps::input_file(o.use_tree);
    const std::string text = cudp::io::read_file_text(tree_file.path, tree_file.name);
    const msa::RootedGuideTree tree = msa::read_clustal_guide_tree(text, seqs.names, tree_file.name, o.threads);
    since = times.add("guide tree", since);
    const auto steps = msa::progressive_step_ranges(tree);
    Progress placed(progress, n, "progressive alignment on " + tree_file.name, "sequences");
    alignment = msa::progressive_align(seqs.residues, steps, msa::sequence_weights(tree, p.no_weights),
                                       msa::TreeSimilarities(tree), p, tree.has_distances, o.threads,
                                       msa::growing_alignment_from, placed.counter());
  } else {
    const auto settings = pairwise_settings(o, seqs.dna, matrix_files);
    const bool on_gpu = pairwise_on_gpu(o, gpu, seqs);
    Progress pairs(progress, n * (n - 1) / 2,
                   std::string("pairwise distances (") +
                       (o.quicktree ? "k-tuples" : on_gpu ? "full alignments on the GPU" : "full alignments") + ")",
                   "pairs");
    cudp::phylo::DistanceMatrix distances =
        on_gpu ? full_distances_on_gpu(seqs.residues, settings.full, o.threads, pairs.counter())
               : msa::clustal_distances(seqs.residues, settings, o.threads, pairs.counter());
    pairs.stop();
    since = times.add("pairwise distances", since);
    msa::GuideTree guide;
    if (o.upgma) {
      say("guide tree (UPGMA)");
      guide = msa::clustal_guide_tree(std::move(distances), seqs.names, msa::ClusterMethod::upgma, o.threads);
    } else {
      Progress joins(progress && n > 3, n > 3 ? n - 3 : 0, "guide tree (neighbour-joining)", "joins");
      guide = msa::clustal_guide_tree(std::move(distances), seqs.names, msa::ClusterMethod::neighbor_joining,
                                      o.threads, joins.counter());
    }
    dnd = guide.dnd;
    if (o.guide_tree_only) {
      cudp::io::write_outputs({{tree_out, &dnd}}, nullptr);
      times.add("guide tree", since);
      say("done: " + tree_out);
      times.print("cudp-msa");
      return 0;
    }
    if (o.upgma) {
      // ClustalW takes a UPGMA run's steps and weights from the joins, its identities from the distances.
      const auto steps = msa::progressive_step_ranges(guide.upgma, n);
      since = times.add("guide tree", since);
      Progress placed(progress, n, "progressive alignment", "sequences");
      const msa::MatrixSimilarities identities(guide.matrix_after, msa::MatrixSimilarities::Holds::distances);
      alignment = msa::progressive_align(seqs.residues, steps,
                                         msa::upgma_sequence_weights(guide.upgma, n, p.no_weights), identities, p,
                                         true, o.threads, msa::growing_alignment_from, placed.counter());
    } else {
      // ClustalW aligns on the tree it wrote, read back (five decimals); the distances are done with.
      guide.matrix_after = {};
      release_freed_memory();
      const msa::RootedGuideTree tree = msa::read_clustal_guide_tree(dnd, seqs.names, "the guide tree", o.threads);
      const auto steps = msa::progressive_step_ranges(tree);
      since = times.add("guide tree", since);
      Progress placed(progress, n, "progressive alignment", "sequences");
      alignment = msa::progressive_align(seqs.residues, steps, msa::sequence_weights(tree, p.no_weights),
                                         msa::TreeSimilarities(tree), p, tree.has_distances, o.threads,
                                         msa::growing_alignment_from, placed.counter());
    }
  }
  since = times.add("progressive alignment", since);

  msa::AlignmentOutputOptions shown;
  shown.dna = seqs.dna;
  shown.lower_case = !o.upper_case;
  shown.sequence_numbers = o.sequence_numbers;
  shown.sequence_ranges = o.sequence_ranges;
  shown.range_from = o.range_from;
  shown.range_to = o.range_to;
  shown.weights = alignment.weights;  // GCG reports the final weights
  const std::string text = msa::alignment_text(msa::alignment_format_from_name(o.format == "msf" ? "gcg" : o.format),
                                               seqs.names, alignment, shown);
  std::vector<std::pair<std::string, const std::string*>> files;
  if (!out.empty()) files.emplace_back(out, &text);
  if (!tree_out.empty()) files.emplace_back(tree_out, &dnd);
  cudp::io::write_outputs(files, out.empty() ? &text : nullptr);
  times.add("write", since);
  say("done: " + std::to_string(alignment.rows.empty() ? 0 : alignment.rows[0].size()) + " columns" +
      (out.empty() ? "" : ", " + out) + (tree_out.empty() ? "" : ", " + tree_out));
  times.print("cudp-msa");
  return 0;
}

}  // namespace msa_app
