#pragma once
/// \file
/// The command-line parser every tool uses: a table of options, scanned in one of two syntaxes.
///   gnu    (cudp-swsearch, cudp-align, cudp-phylo): exact option names, each value the next word, options and
///          operands in any order; -h or --help ends the scan.
///   easel  (the HMMER tools, as HMMER's esl_getopts): options first, each at most once; a long option may be any
///          unique prefix of its name and take its value as "--opt value" or "--opt=value"; a one-letter option
///          takes it as "-X value" or "-Xvalue" and may be clustered ("-abc"); "--", or the first word that does not
///          start with '-' (or is "-"), ends the options and the rest are operands.
/// A usage error is UsageError; run_tool (tool.hpp) prints it with a pointer to --help and exits with the tool's
/// usage status.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudp::apps {

/// A mistake on the command line; the message names the option and the value.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Throws UsageError(message).
[[noreturn]] inline void usage_error(const std::string& message) { throw UsageError(message); }

/// The two syntaxes of the file's description: `gnu` and `easel`.
enum class OptionSyntax { gnu, easel };

/// What an option takes: nothing, a word (in the easel syntax a separate word that starts with '-' is refused as a
/// likely forgotten value), or a number (which may be negative).
enum class OptionValue { none, word, number };

/// An option of a table: its name and what it takes.
struct OptionSpec {
  const char* name;  ///< "--query", "-E"
  OptionValue value;  ///< nothing, a word or a number
};

/// One option as the command line gave it: its index in the table, its full name and its value (empty for none).
struct OptionWord {
  std::size_t index;  ///< its place in the table
  std::string name;  ///< its full name, as the table spells it
  std::string value;  ///< its value; empty for an option that takes none
};

/// A tool's options, scanned in one syntax: find() names an option, scan() reads a command line.
class OptionTable {
 public:
  /// The options `specs`, read in `syntax`.
  OptionTable(OptionSyntax syntax, std::vector<OptionSpec> specs) : syntax_(syntax), specs_(std::move(specs)) {}

  /// \name Options
  //@{
  /// The i-th option, and how many there are.
  const OptionSpec& operator[](std::size_t i) const { return specs_[i]; }
  std::size_t size() const { return specs_.size(); }
  //@}

  /// The option a word names (for easel, a unique prefix of a long name will do); a usage error when none.
  std::size_t find(const std::string& word) const {
    if (word.size() == 2 && word[0] == '-' && word[1] != '-') return find_short(word[1]);
    if (const std::size_t exact = find_exact(word); exact < specs_.size()) return exact;
    std::size_t found = specs_.size(), matches = 0;
    for (std::size_t i = 0; syntax_ == OptionSyntax::easel && i < specs_.size(); ++i)
      if (std::string(specs_[i].name).compare(0, word.size(), word) == 0) {
        found = i;
        ++matches;
      }
    if (matches > 1) usage_error("abbreviated option \"" + word + "\" is ambiguous");
    if (matches == 0) usage_error("unknown option " + word);
    return found;
  }

  /// Reads argv[first..argc): `on_option` for each option in order, `on_operand` for each other word. In the easel
  /// syntax an option given twice is a usage error.
  void scan(int argc, const char* const* argv, int first, const std::function<void(const OptionWord&)>& on_option,
            const std::function<void(const std::string&)>& on_operand) const {
    if (syntax_ == OptionSyntax::gnu) return scan_gnu(argc, argv, first, on_option, on_operand);
    scan_easel(argc, argv, first, on_option, on_operand);
  }

 private:
  // The option named `word` exactly, or size() when none is.
  std::size_t find_exact(const std::string& word) const {
    for (std::size_t i = 0; i < specs_.size(); ++i)
      if (word == specs_[i].name) return i;
    return specs_.size();
  }

  std::size_t find_short(char c) const {
    for (std::size_t i = 0; i < specs_.size(); ++i)
      if (specs_[i].name[0] == '-' && specs_[i].name[1] == c && specs_[i].name[2] == '\0') return i;
    usage_error(std::string("unknown option -") + c);
  }

  void scan_gnu(int argc, const char* const* argv, int a, const std::function<void(const OptionWord&)>& on_option,
                const std::function<void(const std::string&)>& on_operand) const {
    for (; a < argc; ++a) {
      const std::string word = argv[a];
      const std::size_t i = find_exact(word);
      if (i == specs_.size()) {
        if (word.size() < 2 || word[0] != '-') on_operand(word);
        else usage_error("unknown option " + word);
        continue;
      }
      std::string value;
      if (specs_[i].value != OptionValue::none) {
        if (a + 1 >= argc) usage_error("missing value for " + word);
        value = argv[++a];
      }
      on_option({i, word, value});
      if (word == "--help" || word == "-h") return;  // help answers whatever follows it
    }
  }

  void scan_easel(int argc, const char* const* argv, int a, const std::function<void(const OptionWord&)>& on_option,
                  const std::function<void(const std::string&)>& on_operand) const {
    std::vector<bool> seen(specs_.size());
    std::string cluster;  // the rest of a "-abc" word still to be read as one-letter options
    while (a < argc || !cluster.empty()) {
      std::size_t i = specs_.size();
      std::optional<std::string> glued;  // a value in the same word as its option
      std::string spelled;               // how the option's value must be glued, for the "looks like an option" hint
      if (cluster.empty()) {
        const std::string word = argv[a];
        if (word.size() < 2 || word[0] != '-') break;
        ++a;
        if (word == "--") break;
        if (word[1] == '-') {
          const std::size_t eq = word.find('=');
          i = find(word.substr(0, eq));
          if (eq != std::string::npos) glued = word.substr(eq + 1);
          spelled = std::string(specs_[i].name) + "=";
        } else {
          cluster = word.substr(1);
        }
      }
      if (i == specs_.size()) {
        i = find_short(cluster[0]);
        cluster.erase(0, 1);
        if (specs_[i].value != OptionValue::none && !cluster.empty()) {
          glued = cluster;
          cluster.clear();
        }
        spelled = specs_[i].name;
      }
      const std::string name = specs_[i].name;
      std::string value;
      if (specs_[i].value == OptionValue::none) {
        if (glued) usage_error("option " + name + " takes no value, got '" + *glued + "'");
      } else if (glued) {
        value = *glued;
      } else {
        if (a >= argc) usage_error("option " + name + " needs a value");
        value = argv[a++];
        // Easel's guard against a forgotten value swallowing the next option; numbers may be negative.
        if (specs_[i].value == OptionValue::word && !value.empty() && value[0] == '-')
          usage_error("option " + name + " got '" + value + "', which looks like an option; write " + spelled +
                      value + " if it is the value");
      }
      if (seen[i]) usage_error("option " + name + " has already been set");
      seen[i] = true;
      on_option({i, name, value});
    }
    for (; a < argc; ++a) on_operand(argv[a]);
  }

  OptionSyntax syntax_;
  std::vector<OptionSpec> specs_;
};

/// The whole of `text` as a 32-bit integer, or a usage error naming the option.
inline int parse_int(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < INT32_MIN || v > INT32_MAX)
    usage_error(flag + " expects an integer, got '" + text + "'");
  return static_cast<int>(v);
}

/// `value` is one of `allowed`, or a usage error listing them.
inline void check_choice(const std::string& flag, const std::string& value, const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (value == a) return;
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i)
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
  usage_error(flag + " must be " + list + ", got '" + value + "'");
}

/// Options bound to the fields they set, for a tool's parse_options in the GNU syntax: -h and --help are always
/// there, and parse() answers false when one is given.
///   OptionBindings options;
///   options.word("--query", o.query).integer("--top", o.top).flag("--alignments", o.alignments);
///   if (!options.parse(argc, argv, 1, refuse_operands("the inputs are given with --query"))) return std::nullopt;
class OptionBindings {
 public:
  using Setter = std::function<void(const std::string& flag, const std::string& value)>;  ///< checks and stores one option's value

  /// A table with -h and --help alone.
  OptionBindings() { flag("--help", help_).flag("-h", help_); }

  /// \name Bindings
  //@{
  /// An option bound to a field: `flag` sets a bool, `word` stores its value, `integer` parses a number (into
  /// an int or a std::optional<int>; a usage error when it is not one). Each returns the bindings, to chain.
  OptionBindings& flag(const char* name, bool& target) {
    return bind(name, OptionValue::none, [&target](const std::string&, const std::string&) { target = true; });
  }
  OptionBindings& word(const char* name, std::string& target) {
    return bind(name, OptionValue::word, [&target](const std::string&, const std::string& v) { target = v; });
  }
  template <class Int>  // int or std::optional<int>
  OptionBindings& integer(const char* name, Int& target) {
    return bind(name, OptionValue::number,
                [&target](const std::string& f, const std::string& v) { target = parse_int(f, v); });
  }
  //@}
  /// Any other option: `set(flag, value)` checks and stores the value.
  OptionBindings& bind(const char* name, OptionValue value, Setter set) {
    specs_.push_back({name, value});
    setters_.push_back(std::move(set));
    return *this;
  }

  /// Reads argv[first..argc) into the bound fields; false when help was asked for.
  bool parse(int argc, const char* const* argv, int first, const std::function<void(const std::string&)>& on_operand) {
    const OptionTable table(OptionSyntax::gnu, specs_);
    table.scan(argc, argv, first, [&](const OptionWord& w) { setters_[w.index](w.name, w.value); }, on_operand);
    return !help_;
  }

 private:
  bool help_ = false;
  std::vector<OptionSpec> specs_;
  std::vector<Setter> setters_;
};

/// An operand handler for tools that take none: each is a usage error, with `hint` saying how inputs are given.
inline std::function<void(const std::string&)> refuse_operands(std::string hint) {
  return [hint = std::move(hint)](const std::string& word) {
    usage_error("unexpected argument '" + word + "'" + (hint.empty() ? "" : ": " + hint));
  };
}

}  // namespace cudp::apps
