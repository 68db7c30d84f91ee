#pragma once
// Reader for HMMER3 ASCII profile files (save formats HMMER3/a .. HMMER3/f), plain or gzip-compressed, one model
// at a time.
//
// A file holds one or more models, each:
//   HMMER3/f [version]             format line
//   NAME ..  LENG ..  ALPH ..      header lines, one tag each, up to the HMM line
//   HMM  A C D ...                 residue column labels, then one line of transition labels
//   COMPO ...                      optional: mean match emission composition
//   node 0: insert emissions, then the transitions out of the begin node
//   node k = 1..M: "k" + match emissions + annotation columns, insert emissions, transitions
//   //
// Probabilities are written as negative natural logarithms, '*' meaning probability zero. The reader keeps them
// as probabilities in float, converted the way HMMER converts them (expf of the negated value), so that a profile
// configured from them carries the same rounding as HMMER's.
//
// Parsing follows HMMER's own reader: blank lines and lines starting with '#' are skipped, unknown header tags are
// ignored (Pfam adds some), and the per-node annotation columns depend on the format version. It is stricter about
// counts: every line of numbers must have exactly the expected number of fields, and nodes must be numbered 1..M
// with M the LENG value. Every error is an InputError "file:line: message" naming the offending field.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../io/error.hpp"
#include "../io/fasta.hpp"  // io::ChunkSource and its file (zlib) and memory implementations
#include "../host/parallel_for.hpp"

namespace cudp::hmmer {

enum class HmmFormat { v3a, v3b, v3c, v3d, v3e, v3f };
enum class HmmAlphabet { Amino, Dna, Rna };

// The seven core transitions of a Plan7 node, in file column order.
enum HmmTransition : int { kMM = 0, kMI, kMD, kIM, kII, kDM, kDD, kTransitionCount };

inline int residue_count(HmmAlphabet alphabet) { return alphabet == HmmAlphabet::Amino ? 20 : 4; }

inline const char* alphabet_name(HmmAlphabet alphabet) {
  switch (alphabet) {
    case HmmAlphabet::Amino:
      return "amino";
    case HmmAlphabet::Dna:
      return "DNA";
    default:
      return "RNA";
  }
}

inline const char* format_name(HmmFormat format) {
  static constexpr const char* names[] = {"HMMER3/a", "HMMER3/b", "HMMER3/c", "HMMER3/d", "HMMER3/e", "HMMER3/f"};
  return names[static_cast<int>(format)];
}

// A score threshold pair as on the GA, TC and NC lines: per sequence, per domain.
struct HmmCutoff {
  float sequence = 0;
  float domain = 0;
};

// Parameters of the score distributions, from the STATS LOCAL lines: Gumbel (mu, lambda) for MSV and Viterbi bit
// scores, an exponential tail (tau, lambda) for Forward bit scores.
struct HmmStats {
  float msv_mu = 0, msv_lambda = 0;
  float viterbi_mu = 0, viterbi_lambda = 0;
  float forward_tau = 0, forward_lambda = 0;
};

// One profile HMM as the file describes it (the "core model"): probabilities, not scores.
struct HmmModel {
  HmmFormat format = HmmFormat::v3f;
  std::string source;      // file it came from
  std::uint64_t line = 0;  // line of its format line

  std::string name, accession, description, date, command_log;
  HmmAlphabet alphabet = HmmAlphabet::Amino;
  int length = 0;  // M, the number of match nodes
  std::optional<int> max_length;
  std::optional<int> sequence_count;
  std::optional<double> effective_sequence_count;
  std::optional<std::uint32_t> checksum;
  std::optional<HmmCutoff> gathering, trusted, noise;
  std::optional<HmmStats> stats;

  // Per-node annotation, indexed by node 1..M; index 0 holds ' ' (or 0) so that node k is at [k]. A string is
  // empty (and the vector too) when the header line says the column is absent.
  std::string consensus, reference, model_mask, consensus_structure;
  std::vector<int> alignment_map;

  // Probabilities, node-major: node k's K match emissions start at match[k*K]; node 0 has no match state and keeps
  // zeros. transitions[k*7 + t] is transition t out of node k (node 0 is the begin node; for node M the MM and MD
  // columns lead to the end state).
  std::vector<float> composition;  // K values, empty without a COMPO line
  std::vector<float> match;
  std::vector<float> insert;
  std::vector<float> transitions;

  int residues() const { return residue_count(alphabet); }
  float match_probability(int node, int residue) const { return match[index(node, residue)]; }
  float insert_probability(int node, int residue) const { return insert[index(node, residue)]; }
  float transition(int node, HmmTransition t) const {
    return transitions[static_cast<std::size_t>(node) * kTransitionCount + t];
  }

 private:
  std::size_t index(int node, int residue) const {
    return static_cast<std::size_t>(node) * static_cast<std::size_t>(residues()) + static_cast<std::size_t>(residue);
  }
};

namespace detail {

class IstreamSource final : public io::ChunkSource {
 public:
  static constexpr std::size_t chunk_bytes = std::size_t{1} << 16;
  IstreamSource(std::istream& in, std::string name) : in_(in), name_(std::move(name)), buffer_(chunk_bytes) {}
  std::size_t read(const char*& data) override {
    in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    if (in_.bad()) throw io::InputError(io::format_error(name_, "read error"));
    data = buffer_.data();
    return static_cast<std::size_t>(in_.gcount());
  }
  std::uint64_t size_hint() const override { return 0; }

 private:
  std::istream& in_;
  std::string name_;
  std::vector<char> buffer_;
};

// Cuts a chunked byte stream into lines, counting them. '\r' before '\n' is dropped; the last line needs no newline.
class LineSource {
 public:
  // first_line: the lines before the source's first, in the file it comes from (a piece of a file).
  explicit LineSource(std::unique_ptr<io::ChunkSource> source, std::uint64_t first_line = 0)
      : source_(std::move(source)), line_number_(first_line) {}

  bool next(std::string& line) {
    while (true) {
      const std::size_t newline = buffer_.find('\n', position_);
      if (newline != std::string::npos) {
        take(line, newline);
        position_ = newline + 1;
        return true;
      }
      if (at_end_) {
        if (position_ >= buffer_.size()) return false;
        take(line, buffer_.size());
        position_ = buffer_.size();
        return true;
      }
      buffer_.erase(0, position_);
      position_ = 0;
      const char* data = nullptr;
      const std::size_t n = source_->read(data);
      if (n == 0) {
        at_end_ = true;
      } else {
        buffer_.append(data, n);
      }
    }
  }
  std::uint64_t line_number() const { return line_number_; }

 private:
  void take(std::string& line, std::size_t end) {
    line.assign(buffer_, position_, end - position_);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++line_number_;
  }

  std::unique_ptr<io::ChunkSource> source_;
  std::string buffer_;
  std::size_t position_ = 0;
  bool at_end_ = false;
  std::uint64_t line_number_ = 0;
};

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// The blank-separated fields of a line, into `fields` (reused: one allocation for the whole file, not one a line).
inline void split_hmm_fields(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
}

// Text after the tag and the blanks that follow it (DESC, DATE keep their inner spacing).
inline std::string rest_of_line(std::string_view line, std::string_view tag) {
  std::size_t i = line.find(tag) + tag.size();
  while (i < line.size() && is_blank(line[i])) ++i;
  std::size_t end = line.size();
  while (end > i && is_blank(line[end - 1])) --end;
  return std::string(line.substr(i, end - i));
}

inline bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

inline std::string quoted(std::string_view text) { return "'" + io::excerpt(text) + "'"; }

// hmmpress's binary model files (.h3m) begin with a 32-bit magic number whose three high bytes, stored
// little-endian, are ed ed e8 in every HMMER3 save format; the low byte tells the format.
inline bool looks_pressed(std::string_view text) {
  return text.size() >= 4 && static_cast<unsigned char>(text[1]) == 0xed &&
         static_cast<unsigned char>(text[2]) == 0xed && static_cast<unsigned char>(text[3]) == 0xe8;
}

// Parses one model after another from a LineSource. Stateless between models apart from the line position.
class HmmParser {
 public:
  HmmParser(std::unique_ptr<io::ChunkSource> source, std::string source_name, std::uint64_t first_line = 0)
      : lines_(std::move(source), first_line), source_(std::move(source_name)) {}

  bool next(HmmModel& model) {
    if (!next_content_line()) return false;
    model = HmmModel{};
    model.source = source_;
    model.line = lines_.line_number();
    model.format = parse_format_line();
    parse_header(model);
    parse_body(model);
    return true;
  }

 private:
  // Skips blank and comment lines. False at the end of the input.
  bool next_content_line() {
    while (lines_.next(line_)) {
      split_hmm_fields(line_, fields_);
      if (!fields_.empty() && fields_[0][0] != '#') return true;
    }
    fields_.clear();
    return false;
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw io::InputError(io::format_error(source_, lines_.line_number(), message));
  }

  void require_line(const HmmModel& model, const std::string& what) {
    if (!next_content_line()) {
      throw io::InputError(io::format_error(source_, lines_.line_number(),
                                            "model '" + model.name + "' is truncated: the file ends where " + what +
                                        " should be"));
    }
  }

  HmmFormat parse_format_line() {
    const std::string_view tag = fields_[0];
    static constexpr std::string_view prefix = "HMMER3/";
    if (tag.size() == prefix.size() + 1 && tag.substr(0, prefix.size()) == prefix && tag.back() >= 'a' &&
        tag.back() <= 'f') {
      return static_cast<HmmFormat>(tag.back() - 'a');
    }
    if (tag.substr(0, 6) == "HMMER2") fail("HMMER2 profiles are not supported; convert them with hmmconvert");
    if (looks_pressed(tag))
      fail("a binary model file of hmmpress (.h3m): give the flat model file it was pressed from (the .hmm)");
    fail("expected a format line HMMER3/a .. HMMER3/f, found " + quoted(tag));
  }

  int parse_int(std::string_view word, const std::string& field, int lowest) const {
    int value = 0;
    const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (error != std::errc() || end != word.data() + word.size()) fail(field + ": " + quoted(word) + " is not an integer");
    if (value < lowest) fail(field + ": " + quoted(word) + " must be at least " + std::to_string(lowest));
    return value;
  }

  double parse_real(std::string_view word, const std::string& field) const {
    double value = 0;
    const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
    // from_chars also reads "inf" and "nan", which no HMMER writer produces and no DP should see.
    if (error != std::errc() || end != word.data() + word.size() || !std::isfinite(value)) {
      fail(field + ": " + quoted(word) + " is not a number");
    }
    return value;
  }

  // A probability field: '*' or a negative natural log.
  float parse_probability(std::string_view word, const std::string& field) const {
    if (word == "*") return 0.0f;
    const double minus_log = parse_real(word, field);
    if (minus_log < -1e-3) fail(field + ": " + quoted(word) + " is a negative log probability below 0 (p > 1)");
    return std::exp(static_cast<float>(-minus_log));
  }

  bool parse_yes_no(const std::string& tag) const {
    if (fields_.size() != 2) fail(tag + " line: expected 'yes' or 'no'");
    if (equals_ignoring_case(fields_[1], "yes")) return true;
    if (equals_ignoring_case(fields_[1], "no")) return false;
    fail(tag + " line: expected 'yes' or 'no', found " + quoted(fields_[1]));
  }

  // The line must hold exactly `values` fields after its tag (lines of bare numbers have no tag).
  void require_fields(std::size_t values, const std::string& what, bool tagged = true) const {
    const std::size_t tag = tagged ? 1 : 0;
    if (fields_.size() != values + tag) {
      fail(what + ": expected " + std::to_string(values) + " value" + (values == 1 ? "" : "s") + ", found " +
           std::to_string(fields_.size() - tag));
    }
  }

  std::optional<HmmCutoff> parse_cutoff(const std::string& tag, const HmmModel& model, bool alphabet_known) const {
    // Nucleotide models may carry a single value; HMMER then uses it for both.
    const bool nucleic = alphabet_known && model.alphabet != HmmAlphabet::Amino;
    if (fields_.size() < (nucleic ? 2u : 3u) || fields_.size() > 3) {
      fail(tag + " line: expected " + (nucleic ? "1 or 2 values" : "2 values") + ", found " +
           std::to_string(fields_.size() - 1));
    }
    HmmCutoff cutoff;
    cutoff.sequence = static_cast<float>(parse_real(fields_[1], tag + " sequence cutoff"));
    cutoff.domain =
        fields_.size() == 3 ? static_cast<float>(parse_real(fields_[2], tag + " domain cutoff")) : cutoff.sequence;
    return cutoff;
  }

  void parse_stats(HmmModel& model, HmmStats& stats, unsigned& seen) const {
    if (fields_.size() < 2 || !equals_ignoring_case(fields_[1], "LOCAL")) {
      fail("STATS line: expected 'LOCAL' as its first field");
    }
    if (model.format == HmmFormat::v3a) {
      // 3/a wrote one parameter per line, with a lambda shared by all three distributions.
      require_fields(3, "STATS LOCAL line");
      const std::string_view which = fields_[2];
      const float value = static_cast<float>(parse_real(fields_[3], "STATS LOCAL " + std::string(which)));
      if (equals_ignoring_case(which, "VLAMBDA")) {
        stats.msv_lambda = stats.viterbi_lambda = stats.forward_lambda = value;
        seen |= 1u;
      } else if (equals_ignoring_case(which, "VMU")) {
        stats.msv_mu = stats.viterbi_mu = value;
        seen |= 2u;
      } else if (equals_ignoring_case(which, "FTAU")) {
        stats.forward_tau = value;
        seen |= 4u;
      } else {
        fail("STATS LOCAL line: unknown parameter " + quoted(which) + " (3/a knows VLAMBDA, VMU, FTAU)");
      }
      return;
    }
    require_fields(4, "STATS LOCAL line");
    const std::string_view which = fields_[2];
    const std::string label = "STATS LOCAL " + std::string(which);
    const float location = static_cast<float>(parse_real(fields_[3], label + " location"));
    const float lambda = static_cast<float>(parse_real(fields_[4], label + " lambda"));
    if (lambda <= 0) fail(label + ": lambda must be positive");
    if (equals_ignoring_case(which, "MSV")) {
      stats.msv_mu = location, stats.msv_lambda = lambda, seen |= 1u;
    } else if (equals_ignoring_case(which, "VITERBI")) {
      stats.viterbi_mu = location, stats.viterbi_lambda = lambda, seen |= 2u;
    } else if (equals_ignoring_case(which, "FORWARD")) {
      stats.forward_tau = location, stats.forward_lambda = lambda, seen |= 4u;
    } else {
      fail("STATS LOCAL line: unknown score type " + quoted(which) + " (expected MSV, VITERBI or FORWARD)");
    }
  }

  void parse_header(HmmModel& model) {
    bool have_alphabet = false;
    bool rf = false, mm = false, cons = false, cs = false, map = false;
    HmmStats stats;
    unsigned stats_seen = 0;
    while (true) {
      if (!next_content_line()) {
        throw io::InputError(io::format_error(source_, lines_.line_number(),
                                              "the header of the model starting at line " + std::to_string(model.line) +
                                          " has no HMM line: the file is truncated"));
      }
      const std::string_view tag = fields_[0];
      if (tag == "HMM") break;
      if (tag.substr(0, 7) == "HMMER3/" || tag == "//") {
        fail("the header of the model starting at line " + std::to_string(model.line) + " ends without an HMM line");
      }
      if (tag == "NAME") {
        require_fields(1, "NAME line");
        model.name = std::string(fields_[1]);
      } else if (tag == "ACC") {
        require_fields(1, "ACC line");
        model.accession = std::string(fields_[1]);
      } else if (tag == "DESC") {
        model.description = rest_of_line(line_, tag);
      } else if (tag == "LENG") {
        require_fields(1, "LENG line");
        model.length = parse_int(fields_[1], "LENG", 1);
      } else if (tag == "MAXL") {
        require_fields(1, "MAXL line");
        model.max_length = parse_int(fields_[1], "MAXL", 1);
      } else if (tag == "ALPH") {
        require_fields(1, "ALPH line");
        if (equals_ignoring_case(fields_[1], "amino")) {
          model.alphabet = HmmAlphabet::Amino;
        } else if (equals_ignoring_case(fields_[1], "DNA")) {
          model.alphabet = HmmAlphabet::Dna;
        } else if (equals_ignoring_case(fields_[1], "RNA")) {
          model.alphabet = HmmAlphabet::Rna;
        } else {
          fail("ALPH line: unknown alphabet " + quoted(fields_[1]) + " (expected amino, DNA or RNA)");
        }
        have_alphabet = true;
      } else if (tag == "RF") {
        rf = parse_yes_no("RF");
      } else if (tag == "MM") {
        mm = parse_yes_no("MM");
      } else if (tag == "CONS") {
        cons = parse_yes_no("CONS");
      } else if (tag == "CS") {
        cs = parse_yes_no("CS");
      } else if (tag == "MAP") {
        map = parse_yes_no("MAP");
      } else if (tag == "DATE") {
        model.date = rest_of_line(line_, tag);
      } else if (tag == "COM") {
        // "COM [1] command line": the bracketed number only orders the lines.
        if (fields_.size() < 3) fail("COM line: expected a number and a command");
        std::string command = rest_of_line(line_, fields_[1]);
        model.command_log += (model.command_log.empty() ? "" : "\n") + command;
      } else if (tag == "NSEQ") {
        require_fields(1, "NSEQ line");
        model.sequence_count = parse_int(fields_[1], "NSEQ", 1);
      } else if (tag == "EFFN") {
        require_fields(1, "EFFN line");
        model.effective_sequence_count = parse_real(fields_[1], "EFFN");
      } else if (tag == "CKSUM") {
        require_fields(1, "CKSUM line");
        std::uint32_t checksum = 0;
        const auto word = fields_[1];
        const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), checksum);
        if (error != std::errc() || end != word.data() + word.size()) {
          fail("CKSUM: " + quoted(word) + " is not an unsigned 32-bit integer");
        }
        model.checksum = checksum;
      } else if (tag == "GA") {
        model.gathering = parse_cutoff("GA", model, have_alphabet);
      } else if (tag == "TC") {
        model.trusted = parse_cutoff("TC", model, have_alphabet);
      } else if (tag == "NC") {
        model.noise = parse_cutoff("NC", model, have_alphabet);
      } else if (tag == "STATS") {
        parse_stats(model, stats, stats_seen);
      }
      // Any other tag is annotation this reader does not use (Pfam writes BM and SM lines, for example).
    }

    if (model.name.empty()) fail("model starting at line " + std::to_string(model.line) + " has no NAME line");
    if (model.length == 0) fail("model '" + model.name + "' has no LENG line");
    if (!have_alphabet) fail("model '" + model.name + "' has no ALPH line");
    if (stats_seen == 7u) {
      model.stats = stats;
    } else if (stats_seen != 0) {
      fail("model '" + model.name + "' has some STATS LOCAL lines but not all three");
    }

    const int K = model.residues();
    if (fields_.size() != static_cast<std::size_t>(K) + 1) {
      fail("HMM line: expected " + std::to_string(K) + " residue column labels for the " +
           alphabet_name(model.alphabet) + " alphabet, found " + std::to_string(fields_.size() - 1));
    }
    // Node 0 placeholders; nodes are appended as they are read, so that memory follows the input and not a LENG
    // value that may be wrong.
    if (rf) model.reference = " ";
    if (mm) model.model_mask = " ";
    if (cons) model.consensus = " ";
    if (cs) model.consensus_structure = " ";
    if (map) model.alignment_map = {0};
  }

  void parse_probabilities(std::vector<float>& out, std::size_t offset, std::size_t first_field, int count,
                           const std::string& what) {
    for (int x = 0; x < count; ++x) {
      out[offset + static_cast<std::size_t>(x)] =
          parse_probability(fields_[first_field + static_cast<std::size_t>(x)],
                            what + " field " + std::to_string(x + 1));
    }
  }

  void parse_body(HmmModel& model) {
    const int K = model.residues();
    const int M = model.length;
    const auto KK = static_cast<std::size_t>(K);
    model.match.assign(KK, 0.0f);
    model.insert.assign(KK, 0.0f);
    model.transitions.assign(kTransitionCount, 0.0f);

    // The line after HMM labels the transition columns (m->m m->i ...); HMMER does not read it either.
    require_line(model, "the transition labels after the HMM line");
    require_line(model, "node 0");
    if (fields_[0] == "COMPO") {
      require_fields(KK, "COMPO line");
      model.composition.resize(KK);
      parse_probabilities(model.composition, 0, 1, K, "COMPO");
      require_line(model, "the node 0 insert emissions");
    }
    require_fields(KK, "node 0 insert emission line", false);
    parse_probabilities(model.insert, 0, 0, K, "node 0 insert emissions");
    require_line(model, "the node 0 transitions");
    require_fields(kTransitionCount, "node 0 transition line", false);
    parse_probabilities(model.transitions, 0, 0, kTransitionCount, "node 0 transitions");

    // Annotation columns after the match emissions: MAP, then CONS (3/e on), RF, then MM (3/f), then CS.
    const bool has_cons_column = model.format >= HmmFormat::v3e;
    const bool has_mm_column = model.format >= HmmFormat::v3f;
    const std::size_t annotations = 3 + (has_cons_column ? 1 : 0) + (has_mm_column ? 1 : 0);

    for (int k = 1; k <= M; ++k) {
      const std::string node = "node " + std::to_string(k);
      require_line(model, node + " (LENG is " + std::to_string(M) + ")");
      if (fields_[0] == "//") {
        fail("model '" + model.name + "' ends after node " + std::to_string(k - 1) + " but LENG says " +
             std::to_string(M) + " nodes");
      }
      const int number = parse_int(fields_[0], "match line node number", 0);
      if (number != k) {
        fail("node numbers out of order: expected node " + std::to_string(k) + ", found " + std::to_string(number));
      }
      require_fields(KK + annotations,
                     node + " match line (" + std::to_string(K) + " emissions and " + std::to_string(annotations) +
                         " annotation columns for " + format_name(model.format) + ")");
      const std::size_t nodes = static_cast<std::size_t>(k) + 1;
      model.match.resize(nodes * KK);
      model.insert.resize(nodes * KK);
      model.transitions.resize(nodes * kTransitionCount);
      parse_probabilities(model.match, static_cast<std::size_t>(k) * KK, 1, K, node + " match emissions");
      std::size_t column = 1 + KK;
      const std::string_view map_field = fields_[column++];
      if (!model.alignment_map.empty()) model.alignment_map.push_back(parse_int(map_field, node + " MAP column", 0));
      if (has_cons_column && !model.consensus.empty()) model.consensus += fields_[column][0];
      if (has_cons_column) ++column;
      if (!model.reference.empty()) model.reference += fields_[column][0];
      ++column;
      if (has_mm_column && !model.model_mask.empty()) model.model_mask += fields_[column][0];
      if (has_mm_column) ++column;
      if (!model.consensus_structure.empty()) model.consensus_structure += fields_[column][0];

      require_line(model, node + " insert emissions");
      require_fields(KK, node + " insert emission line", false);
      parse_probabilities(model.insert, static_cast<std::size_t>(k) * KK, 0, K, node + " insert emissions");
      require_line(model, node + " transitions");
      require_fields(kTransitionCount, node + " transition line", false);
      parse_probabilities(model.transitions, static_cast<std::size_t>(k) * kTransitionCount, 0, kTransitionCount,
                          node + " transitions");
    }

    // hmmsearch 3.3.2 neither searches nor mentions a last model that ends without its //; refused here, so that
    // a query is never lost without a word.
    if (!next_content_line()) {
      throw io::InputError(io::format_error(
          source_, lines_.line_number(),
          "model '" + model.name + "' is missing its closing // (hmmsearch 3.3.2 silently skips such a model)"));
    }
    if (fields_[0] != "//") {
      if (std::all_of(fields_[0].begin(), fields_[0].end(), [](char c) { return c >= '0' && c <= '9'; })) {
        fail("model '" + model.name + "' has more nodes than LENG " + std::to_string(M) + ": found node " +
             std::string(fields_[0]));
      }
      fail("expected the closing // of model '" + model.name + "', found " + quoted(fields_[0]));
    }
    if (fields_.size() != 1) fail("unexpected text after //");
  }

  LineSource lines_;
  std::string source_;
  std::string line_;
  std::vector<std::string_view> fields_;
};

}  // namespace detail

// Reads the models of a file one at a time. gzip-compressed files are read transparently.
class HmmReader {
 public:
  explicit HmmReader(const std::string& path)
      : parser_(std::make_unique<io::GzipFileSource>(path), path) {}
  HmmReader(std::istream& in, const std::string& source_name)
      : parser_(std::make_unique<detail::IstreamSource>(in, source_name), source_name) {}

  // Fills model with the next one; false at the end of the input.
  bool next(HmmModel& model) { return parser_.next(model); }

 private:
  detail::HmmParser parser_;
};

namespace detail {
inline std::vector<HmmModel> read_all_models(HmmParser& parser, const std::string& source_name) {
  std::vector<HmmModel> models;
  HmmModel model;
  while (parser.next(model)) models.push_back(std::move(model));
  if (models.empty()) throw io::InputError(io::format_error(source_name, "no HMMER3 profile found"));
  return models;
}
}  // namespace detail

// Every model of a file; an empty file is an error. A file of many models (a profile library) is read whole and
// parsed in pieces, cut after "//" lines, on `threads` threads (0: all cores); the models, and the first error of
// the file with its line, are those of a reading from start to end.
inline std::vector<HmmModel> read_hmm_file(const std::string& path, int threads = 0) {
  constexpr std::size_t kPieceBytes = std::size_t{4} << 20;
  std::string text;
  {
    io::GzipFileSource source(path);
    const char* data = nullptr;
    for (std::size_t n; (n = source.read(data)) != 0;) text.append(data, n);
  }
  // Pieces start after a "//" line (what ends a model) at least kPieceBytes from the previous start.
  struct Piece {
    std::size_t begin = 0, end = 0;
    std::uint64_t first_line = 0;
  };
  std::vector<Piece> pieces{{0, text.size(), 0}};
  std::uint64_t lines = 0;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t eol = text.find('\n', at);
    eol = eol == std::string::npos ? text.size() : eol + 1;
    ++lines;
    std::string_view line(text.data() + at, eol - at);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    if (line == "//" && eol < text.size() && eol - pieces.back().begin >= kPieceBytes) {
      pieces.back().end = eol;
      pieces.push_back({eol, text.size(), lines});
    }
    at = eol;
  }
  std::vector<std::vector<HmmModel>> parsed(pieces.size());
  std::vector<std::exception_ptr> errors(pieces.size());
  host::parallel_for(pieces.size(), threads, [] { return 0; }, [&](int&, std::size_t i) {
    try {
      const Piece& p = pieces[i];
      detail::HmmParser parser(std::make_unique<io::MemorySource>(text.data() + p.begin, p.end - p.begin),
                               path, p.first_line);
      HmmModel model;
      while (parser.next(model)) parsed[i].push_back(std::move(model));
    } catch (...) {
      errors[i] = std::current_exception();
    }
  });
  std::vector<HmmModel> models;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    for (HmmModel& m : parsed[i]) models.push_back(std::move(m));
  }
  if (models.empty()) throw io::InputError(io::format_error(path, "no HMMER3 profile found"));
  return models;
}

// The same for text already in memory; source_name stands in for the path in error messages.
inline std::vector<HmmModel> parse_hmm(std::string_view text, const std::string& source_name) {
  detail::HmmParser parser(std::make_unique<io::MemorySource>(text.data(), text.size()), source_name);
  return detail::read_all_models(parser, source_name);
}

}  // namespace cudp::hmmer
