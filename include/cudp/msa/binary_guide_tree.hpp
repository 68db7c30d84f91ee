#pragma once
// A guide tree as ClustalW 2.1's progressive stage sees it: read from the .dnd text the way ClustalW reads it, made
// binary, rooted by ClustalW's rule when the file is unrooted (its neighbour-joining trees always are), with every
// node's leaf count. Sequence weights, the order of the progressive steps and the identities that choose each step's
// matrix all derive from this tree (sequence_weights.hpp, alignment_steps.hpp, tree_similarities.hpp), so its
// shape, its float branch lengths and its child order must be ClustalW's exactly.
//
// ClustalW's reader is not a general Newick reader: a node has two or three children (a third makes a new node
// above the first two, and marks the tree unrooted), names run to the next ':', ',' or ')' (at most 150
// characters), internal nodes carry no labels, and branch lengths may be negative (neighbour-joining writes them).
// It reads lengths as float; so does this.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "../io/error.hpp"

namespace cudp::msa {

struct GuideNode {
  int parent = -1;
  int left = -1;
  int right = -1;
  float length = 0.0f;  // of the branch to the parent
  bool leaf = false;
  int leaf_count = 0;   // leaves at or below this node (ClustalW's node "order")
  std::string name;
};

struct BinaryGuideTree {
  std::vector<GuideNode> nodes;
  int root = -1;
  std::vector<int> creation_order;    // nodes in the order the reader met them; rooting scans them in this order
  std::vector<int> leaves;            // leaves in file order
  std::vector<int> leaf_of_sequence;  // the leaf of each input sequence
  bool has_lengths = true;            // every leaf had a branch length
  bool rooted = true;                 // the file's top node had two children
};

namespace detail {

inline constexpr std::size_t clustal_max_name = 150;

class DndReader {
 public:
  DndReader(std::string_view text, std::string_view source, BinaryGuideTree& tree)
      : text_(text), source_(source), tree_(tree) {}

  int read() {
    skip_space();
    if (at_ >= text_.size() || text_[at_] != '(') fail("a guide tree starts with '('");
    const int top = make_node();
    return read_subtree(top, -1);
  }

 private:
  int make_node() {
    tree_.nodes.emplace_back();
    return static_cast<int>(tree_.nodes.size()) - 1;
  }

  int get() { return at_ < text_.size() ? static_cast<unsigned char>(text_[at_++]) : EOF; }

  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw io::InputError(io::format_error(source_, message + " (at byte " + std::to_string(at_) + ")"));
  }

  // Reads the subtree whose text starts here into `node`; returns the node that stands for it (a new node when
  // the subtree had three children). Leaves `last_` at the character after the subtree's branch length.
  int read_subtree(int node, int parent) {
    skip_space();
    last_ = get();
    std::string name;
    if (last_ == '(') {
      tree_.creation_order.push_back(node);
      const int left = make_node();
      tree_.nodes[node].left = read_subtree(left, node);
      if (last_ != ',') fail("a guide tree node needs two children");
      const int right = make_node();
      tree_.nodes[node].right = read_subtree(right, node);
      if (last_ == ',') {
        // A third child: a new node takes the first two as its left child and the third as its right.
        const int above = make_node();
        tree_.nodes[above].left = node;
        tree_.nodes[node].parent = above;
        tree_.creation_order.push_back(above);
        const int third = make_node();
        tree_.nodes[above].right = read_subtree(third, above);
        tree_.rooted = false;
        node = above;
      }
      if (last_ != ')') fail("a guide tree node has at most three children");
      skip_space();
      last_ = get();
    } else {
      if (last_ == EOF) fail("unexpected end of the guide tree");
      tree_.creation_order.push_back(node);
      tree_.leaves.push_back(node);
      name += static_cast<char>(last_);
      last_ = get();
      while (last_ != ':' && last_ != ',' && last_ != ')') {
        if (last_ == EOF) fail("unexpected end of the guide tree");
        if (name.size() < clustal_max_name) name += static_cast<char>(last_);
        last_ = get();
      }
      if (last_ != ':') tree_.has_lengths = false;
    }
    float length = 0.0f;
    if (last_ == ':') {
      skip_space();
      const std::string number(text_.substr(at_, std::min<std::size_t>(64, text_.size() - at_)));
      char* end = nullptr;
      length = std::strtof(number.c_str(), &end);
      at_ += static_cast<std::size_t>(end - number.c_str());
      skip_space();
      last_ = get();
    }
    GuideNode* self = &tree_.nodes[node];
    self->parent = parent;
    self->leaf = !name.empty();
    self->length = length;
    self->name = std::move(name);
    if (self->leaf) self->left = self->right = -1;
    return node;
  }

  std::string_view text_;
  std::string_view source_;
  BinaryGuideTree& tree_;
  std::size_t at_ = 0;
  int last_ = 0;
};

// ClustalW's comparison of names: the first 150 characters, upper case folded to lower, blanks as '_'.
inline std::string clustal_name_key(std::string_view name) {
  std::string key;
  for (std::size_t k = 0; k < name.size() && k < clustal_max_name; ++k) {
    char c = name[k];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c | 0x20);
    if (c == ' ') c = '_';
    key += c;
  }
  return key;
}

// The difference between the mean distance from `node` to the leaves outside its subtree and the mean distance
// from it to the leaves inside, and (through `deepest`) the largest leaf-to-meeting-point distance ClustalW
// records: for an outside leaf it stops where the leaf's path meets the node's path to the top.
inline float side_mean_difference(const BinaryGuideTree& t, int node, float& deepest) {
  std::vector<int> path;
  std::vector<float> to_node;
  float sum = 0.0f;
  for (int p = node; p >= 0; p = t.nodes[p].parent) {
    path.push_back(p);
    sum += t.nodes[p].length;
    to_node.push_back(sum);
  }
  float outside_sum = 0.0f, inside_sum = 0.0f;
  int outside = 0, inside = 0;
  deepest = 0.0f;
  for (const int leaf : t.leaves) {
    float dist = 0.0f;
    bool below = leaf == node;
    std::size_t meet = 0;
    if (!below) {
      int p = leaf;
      bool found = false;
      while (!found && t.nodes[p].parent >= 0) {
        for (std::size_t k = 0; k < path.size(); ++k)
          if (t.nodes[p].parent == path[k]) {
            found = true;
            meet = k;
          }
        dist += t.nodes[p].length;
        p = t.nodes[p].parent;
      }
      below = p == node;
    }
    if (below) {
      inside_sum += dist;
      ++inside;
    } else {
      outside_sum += dist;
      outside_sum += to_node[meet - 1];
      ++outside;
    }
    if (dist > deepest) deepest = dist;
  }
  return outside_sum / static_cast<float>(outside) - inside_sum / static_cast<float>(inside);
}

// Puts a new root on the branch above `node`, `offset` / 2 from it (clamped to the branch), reverses the edges on
// the old path to the top, and splices out the old top node, which is left with one child.
inline void insert_root(BinaryGuideTree& t, int node, float offset) {
  auto& n = t.nodes;
  const int root = static_cast<int>(n.size());
  n.emplace_back();
  const int above = n[node].parent;
  float carried = n[above].length;
  const float whole = n[node].length;
  n[node].parent = root;
  float near = offset / 2;
  if (near < 0.0f) near = 0.0f;
  if (near > whole) near = whole;
  n[node].length = near;
  n[above].length = whole - near;
  n[root].left = above;
  n[root].right = node;
  if (n[above].left == node) {
    n[above].left = n[above].parent;
  } else {
    n[above].right = n[above].parent;
  }
  int prev = above;
  int q = n[above].parent;
  n[above].parent = root;
  while (q >= 0) {
    const bool via_left = n[q].left == prev;
    int& toward_old_top = via_left ? n[q].left : n[q].right;
    toward_old_top = n[q].parent;
    n[q].parent = prev;
    const float own = n[q].length;
    n[q].length = carried;
    carried = own;
    prev = q;
    q = toward_old_top;
  }
  // `prev` is the old top: one child pointer is now empty; its other child takes its place.
  const int old_top = prev;
  const bool left_empty = n[old_top].left < 0;
  const int child = left_empty ? n[old_top].right : n[old_top].left;
  n[child].length += n[old_top].length;
  n[child].parent = n[old_top].parent;
  const int grand = n[old_top].parent;
  if (n[grand].left == old_top) {
    n[grand].left = child;
  } else {
    n[grand].right = child;
  }
  if (left_empty) {
    n[old_top].right = -1;
  } else {
    n[old_top].left = -1;
  }
  t.root = root;
}

// ClustalW's rooting: among the nodes met in reading order, those where the leaves' mean distances on either side
// balance within twice the node's branch (or exactly), the one whose deepest measured leaf is nearest; the root goes
// on that node's branch. Choosing the reader's first node counts as choosing none, and then the root goes on the
// branch of its right child.
inline void reroot(BinaryGuideTree& t, int first_node) {
  int best = first_node;
  float best_difference = 0.0f, best_depth = 1.0f;
  bool first = true;
  for (const int p : t.creation_order) {
    if (t.nodes[p].parent < 0) continue;
    float deepest = 0.0f;
    const float difference = side_mean_difference(t, p, deepest);
    if (difference == 0 || (difference > 0 && difference < 2 * t.nodes[p].length)) {
      if (deepest < best_depth || first) {
        first = false;
        best = p;
        best_depth = deepest;
        best_difference = difference;
      }
    }
  }
  if (best == first_node) {
    best_difference = t.nodes[t.nodes[best].left].length + t.nodes[t.nodes[best].right].length;
    best = t.nodes[best].right;
  }
  insert_root(t, best, best_difference);
}

inline void count_leaves(BinaryGuideTree& t) {
  for (const int leaf : t.leaves)
    for (int p = leaf; p >= 0; p = t.nodes[p].parent) ++t.nodes[p].leaf_count;
}

}  // namespace detail

// Reads a .dnd as ClustalW does and matches its leaves to `sequence_names` (ClustalW's rule: first 150
// characters, case-insensitive, blanks as '_'). Throws io::InputError when the text is not such a tree or the
// leaves and the names differ.
inline BinaryGuideTree read_clustal_guide_tree(std::string_view text, const std::vector<std::string>& sequence_names,
                                               std::string_view source = "guide tree") {
  BinaryGuideTree tree;
  detail::DndReader reader(text, source, tree);
  tree.root = reader.read();
  if (tree.leaves.size() != sequence_names.size()) {
    throw io::InputError(io::format_error(source, "tree not compatible with alignment: " +
                                                      std::to_string(sequence_names.size()) +
                                                      " sequences and " + std::to_string(tree.leaves.size()) +
                                                      " leaves"));
  }
  if (!tree.rooted) {
    if (!tree.has_lengths) throw io::InputError(io::format_error(source, "unrooted guide tree without lengths"));
    detail::reroot(tree, tree.creation_order.front());
  }
  detail::count_leaves(tree);
  tree.leaf_of_sequence.assign(sequence_names.size(), -1);
  for (std::size_t s = 0; s < sequence_names.size(); ++s) {
    const std::string key = detail::clustal_name_key(sequence_names[s]);
    for (const int leaf : tree.leaves)
      if (detail::clustal_name_key(tree.nodes[leaf].name) == key) tree.leaf_of_sequence[s] = leaf;
    if (tree.leaf_of_sequence[s] < 0) {
      throw io::InputError(io::format_error(source, "tree not compatible with alignment: " + key + " not found"));
    }
  }
  return tree;
}

}  // namespace cudp::msa
