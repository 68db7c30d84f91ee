#pragma once
// Newick trees: reading (from text, or from a plain or gzip-compressed file) and writing.
//
// Rules: whitespace, newlines and [comments] may come between any two tokens; labels are unquoted words, kept as
// written (underscores stay underscores, since alignment names keep them), or single-quoted strings in which ''
// stands for one quote; internal nodes may carry a label (often a support value); a branch length is ':' and a
// decimal number, with optional sign and exponent, that must not be negative; a node may have a single child; the
// tree ends with ';' and whatever follows it is ignored. A tree of one tip needs no parentheses ("A;"). Every tip
// needs a label and tip labels must be unique. Anything else is an io::InputError naming source, line and column.
//
// Neither the parser nor the tree walks recurse: a caterpillar of 100000 tips is 100000 levels deep, far more than
// a thread's stack holds frames for.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../io/error.hpp"
#include "../io/fasta.hpp"
#include "../io/text_cursor.hpp"

namespace cudp::phylo {

struct TreeNode {
  int parent = -1;            // -1 for the root
  std::vector<int> children;  // in input order
  double length = 0;          // branch to the parent
  bool has_length = false;
  std::string label;  // tip name or internal label (support value), unquoted
};

struct Tree {
  std::vector<TreeNode> nodes;
  int root = -1;

  bool is_tip(int node) const { return nodes[static_cast<std::size_t>(node)].children.empty(); }

  // Every node reachable from the root, children before parents, siblings left to right, the root last.
  std::vector<int> postorder() const {
    std::vector<int> order;
    if (root < 0) return order;
    order.reserve(nodes.size());
    std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
    while (!stack.empty()) {
      const int node = stack.back().first;
      const std::vector<int>& children = nodes[static_cast<std::size_t>(node)].children;
      if (stack.back().second < children.size()) {
        const int child = children[stack.back().second++];
        stack.emplace_back(child, 0);
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
    return order;
  }

  // Tip node indices, left to right as the input gave them.
  std::vector<int> tips() const {
    std::vector<int> result;
    for (const int node : postorder()) {
      if (is_tip(node)) result.push_back(node);
    }
    return result;
  }

  int tip_count() const {
    int count = 0;
    for (const TreeNode& node : nodes) count += node.children.empty() ? 1 : 0;
    return count;
  }
};

namespace detail {

// Bytes that end an unquoted label or a branch length.
inline bool newick_delimiter(char c) {
  return io::is_blank_or_newline(c) || c == '(' || c == ')' || c == '[' || c == ']' || c == '\'' || c == ':' || c == ';' ||
         c == ',';
}

// A label must be quoted to be read back as the same text.
inline bool newick_needs_quotes(std::string_view label) {
  if (label.empty()) return true;
  for (const char c : label) {
    if (newick_delimiter(c) || io::is_control(c)) return true;
  }
  return false;
}

// Decimal number syntax only: from_chars alone would also take "inf", "nan" and "1e5garbage" (stopping early).
inline bool newick_number_syntax(std::string_view text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  std::size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size();
}

class NewickParser {
 public:
  NewickParser(std::string_view text, const std::string& source) : text_(text, source) {}

  Tree parse() {
    skip_blanks();
    if (at_end()) fail(here(), "empty input: no Newick tree found");
    // Internal nodes whose ')' is still to come, innermost last, with where their '(' stands.
    std::vector<int> open;
    std::vector<Position> open_at;
    while (true) {
      // A subtree starts here: '(' opens an internal node, anything else is a tip.
      skip_blanks();
      const int parent = open.empty() ? -1 : open.back();
      if (!at_end() && peek() == '(') {
        open.push_back(add_node(parent));
        open_at.push_back(here());
        advance();
        continue;
      }
      read_tip(parent);
      // After a subtree: ',' starts a sibling, ')' closes the enclosing node (which may carry a label and length
      // and is then a finished subtree itself), ';' ends the tree.
      bool sibling = false;
      while (!sibling) {
        skip_blanks();
        if (at_end()) {
          if (!open.empty()) fail(here(), "unbalanced parentheses: the input ends with " + unclosed(open_at));
          fail(here(), "missing ';' at the end of the tree");
        }
        const char c = peek();
        if (c == ',') {
          if (open.empty()) fail(here(), "',' outside parentheses: a tree has a single root (missing '('?)");
          advance();
          sibling = true;
        } else if (c == ')') {
          if (open.empty()) fail(here(), "unbalanced parentheses: ')' without a matching '('");
          advance();
          const int node = open.back();
          open.pop_back();
          open_at.pop_back();
          std::string label;
          Position at;
          read_label(label, at);
          tree_.nodes[static_cast<std::size_t>(node)].label = std::move(label);
          read_length(node);
        } else if (c == ';') {
          if (!open.empty()) fail(here(), "unbalanced parentheses: ';' comes with " + unclosed(open_at));
          return std::move(tree_);
        } else if (open.empty()) {
          fail(here(), "expected ';' after the tree, got " + io::quote_byte(c));
        } else {
          fail(here(), "expected ')' or ',' after a subtree, got " + io::quote_byte(c));
        }
      }
    }
  }

 private:
  using Position = io::TextPosition;

  bool at_end() const { return text_.at_end(); }
  char peek() const { return text_.peek(); }
  void advance() { text_.advance(); }
  Position here() const { return text_.here(); }
  [[noreturn]] void fail(Position at, const std::string& message) const { text_.fail(at, message); }

  static std::string unclosed(const std::vector<Position>& open_at) {
    const Position inner = open_at.back();
    return std::to_string(open_at.size()) + " '(' not closed (the innermost at line " + std::to_string(inner.line) +
           ", column " + std::to_string(inner.column) + ")";
  }

  void skip_blanks() { text_.skip_spaces_and_comments(); }

  int add_node(int parent) {
    const int id = static_cast<int>(tree_.nodes.size());
    tree_.nodes.emplace_back();
    tree_.nodes.back().parent = parent;
    if (parent >= 0) {
      tree_.nodes[static_cast<std::size_t>(parent)].children.push_back(id);
    } else {
      tree_.root = id;
    }
    return id;
  }

  // Reads a label if one comes next (after blanks); at is where it starts. Returns whether it was quoted.
  bool read_label(std::string& label, Position& at) {
    skip_blanks();
    at = here();
    if (!at_end() && peek() == '\'') {
      advance();
      while (true) {
        if (at_end()) fail(at, "unterminated quoted label: no closing quote");
        const char c = peek();
        advance();
        if (c == '\'') {
          if (at_end() || peek() != '\'') break;
          advance();
        }
        label += c;
      }
      return true;
    }
    const std::size_t start = text_.offset();
    while (!at_end() && !newick_delimiter(peek())) {
      if (io::is_control(peek())) fail(here(), "invalid " + io::quote_byte(peek()) + " in a label");
      advance();
    }
    label.assign(text_.slice(start));
    return false;
  }

  void read_tip(int parent) {
    std::string label;
    Position at;
    const bool quoted = read_label(label, at);
    if (label.empty()) {
      if (quoted) fail(at, "empty tip label ''");
      fail(at, "empty tip label: expected a tip name or '(', got " +
                   (at_end() ? std::string("the end of the input") : io::quote_byte(peek())));
    }
    const auto [seen, inserted] = tip_at_.try_emplace(label, at);
    if (!inserted) {
      fail(at, "duplicate tip label '" + io::excerpt(label) + "' (first at line " +
                   std::to_string(seen->second.line) + ", column " + std::to_string(seen->second.column) + ")");
    }
    const int node = add_node(parent);
    tree_.nodes[static_cast<std::size_t>(node)].label = std::move(label);
    read_length(node);
  }

  void read_length(int node) {
    skip_blanks();
    if (at_end() || peek() != ':') return;
    advance();
    skip_blanks();
    const Position at = here();
    const std::size_t start = text_.offset();
    while (!at_end() && !newick_delimiter(peek())) advance();
    const std::string_view number = text_.slice(start);
    if (number.empty()) {
      fail(at, "missing branch length after ':', got " +
                   (at_end() ? std::string("the end of the input") : io::quote_byte(peek())));
    }
    if (!newick_number_syntax(number)) fail(at, "invalid branch length '" + io::excerpt(number) + "'");
    const std::string_view digits = number[0] == '+' ? number.substr(1) : number;
    double value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error == std::errc::result_out_of_range) {
      fail(at, "branch length '" + io::excerpt(number) + "' is out of range");
    }
    if (error != std::errc() || end != digits.data() + digits.size()) {
      fail(at, "invalid branch length '" + io::excerpt(number) + "'");
    }
    if (value < 0) fail(at, "negative branch length " + io::excerpt(number));
    TreeNode& target = tree_.nodes[static_cast<std::size_t>(node)];
    target.length = value == 0 ? 0.0 : value;  // "-0" is a zero length, written back without the sign
    target.has_length = true;
  }

  io::TextCursor text_;
  Tree tree_;
  std::unordered_map<std::string, Position> tip_at_;
};

inline void append_newick_label(std::string& out, const std::string& label) {
  if (!newick_needs_quotes(label)) {
    out += label;
    return;
  }
  out += '\'';
  for (const char c : label) {
    out += c;
    if (c == '\'') out += '\'';
  }
  out += '\'';
}

}  // namespace detail

// The tree without its root, for reversible models: a root of two children, one of them internal, is dissolved and
// its two branches become one, whose length is their sum (the likelihood does not change; only the sum was ever
// identifiable). Any other tree comes back as it is.
inline Tree unrooted(const Tree& tree) {
  if (tree.root < 0) return tree;
  const std::vector<int>& top = tree.nodes[static_cast<std::size_t>(tree.root)].children;
  if (top.size() != 2 || (tree.is_tip(top[0]) && tree.is_tip(top[1]))) return tree;
  const int keep = tree.is_tip(top[0]) ? top[1] : top[0], other = keep == top[0] ? top[1] : top[0];
  Tree out;
  std::vector<int> renumbered(tree.nodes.size(), -1);
  for (std::size_t n = 0; n < tree.nodes.size(); ++n)
    if (static_cast<int>(n) != tree.root) {
      renumbered[n] = static_cast<int>(out.nodes.size());
      out.nodes.push_back(tree.nodes[n]);
    }
  for (TreeNode& node : out.nodes) {
    if (node.parent >= 0) node.parent = renumbered[static_cast<std::size_t>(node.parent)];
    for (int& child : node.children) child = renumbered[static_cast<std::size_t>(child)];
  }
  TreeNode& new_root = out.nodes[static_cast<std::size_t>(renumbered[static_cast<std::size_t>(keep)])];
  TreeNode& moved = out.nodes[static_cast<std::size_t>(renumbered[static_cast<std::size_t>(other)])];
  moved.length += new_root.length;
  moved.has_length = moved.has_length && new_root.has_length;
  moved.parent = renumbered[static_cast<std::size_t>(keep)];
  new_root.children.push_back(renumbered[static_cast<std::size_t>(other)]);
  new_root.parent = -1;
  new_root.length = 0;
  new_root.has_length = false;
  out.root = renumbered[static_cast<std::size_t>(keep)];
  return out;
}

// The first tree of text; source names the text in error messages.
inline Tree parse_newick(std::string_view text, const std::string& source) {
  return detail::NewickParser(text, source).parse();
}

// The first tree of a plain or gzip-compressed file.
inline Tree read_newick(const std::string& path) { return parse_newick(io::read_file_text(path), path); }

// Newick text for tree, ending in ";". Branch lengths are written with at most `precision` significant digits
// (at least 1); from 17 up, the shortest text that reads back as the same double, so that a round trip is exact
// without turning 0.1 into 0.10000000000000001. Labels are quoted where they would otherwise read back
// differently; an empty internal label is left out.
inline std::string write_newick(const Tree& tree, int precision = 17) {
  precision = precision < 1 ? 1 : precision;
  std::string out;
  if (tree.root < 0) return ";";
  std::vector<std::pair<int, std::size_t>> stack{{tree.root, 0}};
  while (!stack.empty()) {
    const int node = stack.back().first;
    const std::size_t next = stack.back().second;
    const TreeNode& current = tree.nodes[static_cast<std::size_t>(node)];
    if (next < current.children.size()) {
      out += next == 0 ? '(' : ',';
      ++stack.back().second;
      stack.emplace_back(current.children[next], 0);
      continue;
    }
    if (!current.children.empty()) out += ')';
    if (current.children.empty() || !current.label.empty()) detail::append_newick_label(out, current.label);
    if (current.has_length) {
      char buffer[64];
      const auto result =
          precision >= 17
              ? std::to_chars(buffer, buffer + sizeof buffer, current.length, std::chars_format::general)
              : std::to_chars(buffer, buffer + sizeof buffer, current.length, std::chars_format::general, precision);
      out += ':';
      out.append(buffer, result.ptr);
    }
    stack.pop_back();
  }
  out += ';';
  return out;
}

}  // namespace cudp::phylo
