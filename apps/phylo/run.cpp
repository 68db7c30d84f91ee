// cudp-phylo's run: the alignment, tree and model read, the likelihood engine made (GPU or host), the tree
// evaluated (after optimising branch lengths and model parameters where asked), the report and files written.
#include "run.hpp"

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cudp/io/error.hpp>
#include <cudp/io/output_files.hpp>
#include <cudp/phylo/character_alignment.hpp>
#include <cudp/phylo/host_tree_likelihood.hpp>
#include <cudp/phylo/likelihood_model.hpp>
#include <cudp/phylo/model_spec.hpp>
#include <cudp/phylo/newick.hpp>
#include <cudp/phylo/optimize.hpp>

#include "device.hpp"
#include "kit/gpu_choice.hpp"
#include "kit/input_files.hpp"

namespace phylo_app {
namespace {

using cudp::io::InputError;
namespace phylo = cudp::phylo;

// DNA when the declared type says so, or when at least 90% of the letters that are not gaps or unknowns are
// A, C, G, T or U.
const phylo::CharacterCoding& choose_coding(const Options& o, const phylo::CharacterAlignment& a) {
  if (o.data == "dna") return phylo::CharacterCoding::dna();
  if (o.data == "protein") return phylo::CharacterCoding::protein();
  // A codon model reads nucleotides as codons whatever the file declares (IQ-TREE needs -st CODON for that).
  if (o.data == "codon" || (o.data == "auto" && phylo::parse_model(o.model).codon()))
    return phylo::CharacterCoding::codon();
  using D = phylo::DeclaredType;
  if (a.declared == D::dna || a.declared == D::rna || a.declared == D::nucleotide) return phylo::CharacterCoding::dna();
  if (a.declared == D::protein) return phylo::CharacterCoding::protein();
  if (a.declared == D::standard) throw InputError(a.source + ": datatype standard (morphology) is not supported");
  long letters = 0, nucleotides = 0;
  for (const std::string& row : a.rows)
    for (const char c : row) {
      if (c == '-' || c == '?' || c == 'N' || c == 'X' || c == '.' || c == a.gap || c == a.missing) continue;
      ++letters;
      nucleotides += c == 'A' || c == 'C' || c == 'G' || c == 'T' || c == 'U';
    }
  return letters > 0 && nucleotides * 10 >= letters * 9 ? phylo::CharacterCoding::dna()
                                                         : phylo::CharacterCoding::protein();
}

std::string format_number(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.10g", v);
  return text;
}

std::string describe_model(const phylo::ModelSpec& spec, const phylo::LikelihoodModel& m) {
  std::ostringstream out;
  const int n = m.model.states;
  out << "model: " << spec.base;
  if (n == 4) {
    out << "\nexchangeabilities (A-C A-G A-T C-G C-T G-T):";
    const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    for (const auto& p : pairs) out << ' ' << format_number(m.model.exchangeability(p[0], p[1]));
  } else if (spec.codon()) {
    out << "\nomega, kappa:";
    for (const double v : spec.base_parameters) out << ' ' << format_number(v);
    if (spec.base_parameters.empty()) out << " 1 2 (defaults)";
  }
  out << "\nfrequencies (" << m.coding->letters() << "):";
  for (const double f : m.model.frequencies) out << ' ' << format_number(f);
  out << "\nrate categories: " << m.rates.rates.size();
  if (spec.gamma_categories > 0) out << " (gamma, alpha " << format_number(spec.alpha.value_or(1.0)) << ")";
  out << ", rates:";
  for (const double r : m.rates.rates) out << ' ' << format_number(r);
  out << "\ninvariable sites: " << format_number(m.rates.invariant) << '\n';
  return out.str();
}

}  // namespace

int run(const Options& o, const cudp::apps::ToolContext& tool) {
  const bool progress = cudp::apps::show_progress(tool.world);
  for (const std::string* output : {&o.out, &o.site_lh, &o.tree_out})  // before the work, which may take hours
    if (!output->empty()) cudp::io::check_writable(*output);
  const cudp::apps::InputFile alignment_file = cudp::apps::input_file(o.alignment);
  const cudp::apps::InputFile tree_file = cudp::apps::input_file(o.tree);
  const phylo::CharacterAlignment alignment =
      phylo::parse_alignment(cudp::io::read_file_text(alignment_file.path, alignment_file.name), alignment_file.name);
  const phylo::Tree as_read =
      phylo::parse_newick(cudp::io::read_file_text(tree_file.path, tree_file.name), tree_file.name);
  const bool optimizing = o.optimize_branches || o.optimize_model;
  // Optimising both branches at a root of two is optimising one branch twice: unroot, as IQ-TREE does.
  phylo::Tree tree = o.optimize_branches ? phylo::unrooted(as_read) : as_read;
  const phylo::CharacterCoding& coding = choose_coding(o, alignment);
  const phylo::SitePatterns data = phylo::compress_sites(alignment, coding);
  phylo::TraversalPlan plan = phylo::plan_traversal(tree, alignment.names, tree_file.name, alignment_file.name);
  phylo::ModelSpec spec = phylo::parse_model(o.model);
  phylo::LikelihoodModel m = phylo::make_likelihood_model(spec, coding, data);

  const bool single = o.precision == "single";
  bool gpu = false;
  if (o.backend != "host") {
    gpu = phylo_app::gpu_available();
    if (o.backend == "cuda" && !gpu)
      throw std::runtime_error("--backend cuda: no CUDA device found, or this cudp-phylo was built without CUDA");
    if (!gpu) cudp::apps::note_host_fallback();
  }
  const int buffers = optimizing ? phylo::outer_buffer_count(plan) : plan.buffers;
  std::unique_ptr<phylo::LikelihoodEngine> engine;
  if (gpu) engine = phylo_app::make_gpu_engine(plan, data, m, single, buffers);
  else if (single) engine = std::make_unique<phylo::HostTreeLikelihood<float>>(plan, data, m, buffers, o.threads);
  else engine = std::make_unique<phylo::HostTreeLikelihood<double>>(plan, data, m, buffers, o.threads);

  std::optional<phylo::OptimizeResult> optimized;
  if (optimizing) {
    phylo::OptimizeSettings settings;
    settings.branches = o.optimize_branches;
    settings.model = o.optimize_model;
    optimized = phylo::optimize(*engine, plan, spec, coding, data, settings, [&](const std::string& line) {
      if (progress) std::fprintf(stderr, "cudp-phylo: %s\n", line.c_str());
    });
    spec = optimized->spec;
    m = optimized->model;
    for (std::size_t node = 0; node < tree.nodes.size(); ++node)
      if (static_cast<int>(node) != tree.root) {
        tree.nodes[node].length = plan.edge_length[static_cast<std::size_t>(plan.buffer_of_node[node])];
        tree.nodes[node].has_length = true;
      }
  }
  const phylo::LikelihoodResult result = phylo::evaluate(*engine, plan);
  for (int p = 0; p < data.patterns; ++p)
    if (!std::isfinite(result.pattern_log_likelihoods[static_cast<std::size_t>(p)])) {
      int site = 0;
      while (data.pattern_of_site[static_cast<std::size_t>(site)] != p) ++site;
      // A site of a codon alignment is three columns: name the first.
      throw InputError(alignment_file.name + ": " + (coding.width() > 1 ? "codon at column " : "site ") +
                       std::to_string(site * coding.width() + 1) +
                       " has likelihood 0 on this tree (tips that differ joined by branches of length 0?)");
    }

  std::ostringstream report;
  double tree_length = 0;
  for (const double l : plan.edge_length) tree_length += l;
  report << "# cudp-phylo evaluate\n";
  report << "alignment: " << alignment_file.name << " (" << alignment.taxa() << " taxa, " << alignment.sites()
         << " sites, " << data.patterns << " patterns, " << coding.name() << ")\n";
  report << "tree: " << tree_file.name << " (" << tree.tip_count() << " tips, total branch length "
         << format_number(tree_length) << (optimizing ? ", optimised" : "")
         << (tree.nodes.size() != as_read.nodes.size() ? ", unrooted" : "") << ")\n";
  report << describe_model(spec, m);
  report << "backend: " << (gpu ? "cuda" : "host") << ", " << o.precision << " precision\n";
  char line[96];
  std::string tree_text;
  if (optimized) {
    std::snprintf(line, sizeof line, "initial log-likelihood: %.10f\n", optimized->initial_log_likelihood);
    report << line << "optimised (" << (o.optimize_branches ? "branches" : "")
           << (o.optimize_branches && o.optimize_model ? ", " : "") << (o.optimize_model ? "model" : "") << ") in "
           << optimized->rounds << " round(s)\n";
    report << "optimised model: " << phylo::format_model(spec, m.model) << '\n';
    tree_text = phylo::write_newick(tree, 10) + '\n';
    report << "optimised tree: " << tree_text;
  }
  std::snprintf(line, sizeof line, "log-likelihood: %.10f\n", result.log_likelihood);
  report << line;

  std::string site_text;
  if (!o.site_lh.empty()) {
    std::ostringstream s;
    // Codon data have a third as many sites as the alignment has columns.
    s << "1 " << data.pattern_of_site.size() << "\nSite_Lh   ";
    for (std::size_t site = 0; site < data.pattern_of_site.size(); ++site) {
      std::snprintf(line, sizeof line, " %.10g",
                    result.pattern_log_likelihoods[static_cast<std::size_t>(data.pattern_of_site[site])]);
      s << line;
    }
    s << '\n';
    site_text = s.str();
  }
  const std::string main_text = report.str();
  std::vector<std::pair<std::string, const std::string*>> files;
  if (!o.out.empty()) files.emplace_back(o.out, &main_text);
  if (!o.site_lh.empty()) files.emplace_back(o.site_lh, &site_text);
  if (!o.tree_out.empty()) files.emplace_back(o.tree_out, &tree_text);
  // The report first, then the other outputs, when more than one goes to the same stream.
  cudp::io::write_outputs(files, o.out.empty() ? &main_text : nullptr);
  return 0;
}

}  // namespace phylo_app
