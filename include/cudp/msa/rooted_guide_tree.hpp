#pragma once
// The guide tree as ClustalW 2.1's progressive stage uses it: the .dnd text read back (the one it just wrote, or
// -USETREE's), rooted, and turned into the order of profile alignments and a similarity matrix. ClustalW always
// re-reads its own neighbour-joining file, so the branch lengths it works with are the printed five decimals, read
// as floats, and all the arithmetic here is float as in ClustalW.
//
// Reading follows ClustalW's reader rather than phylo/newick.hpp's (which refuses negative lengths, and NJ writes
// them): a name runs to the next ':', ',' or ')' (at most 150 characters kept); a tip without ':' makes the tree one
// "without distances"; a node may have two children, or three, in which case the first two get a new parent, the
// third becomes its sibling, and the tree counts as unrooted (ClustalW's structure, kept since the rooting below
// depends on it). Tips are matched to the sequences by name, case-insensitively, a sequence name's blanks read as
// '_'. The reader recurses once per nesting level.
//
// Rooting an unrooted tree: every node but the top is tried as the place of the root, in the order the reader made
// the nodes; a node qualifies when the mean tip distance on its side minus the mean on the other side is 0 or lies
// in (0, 2 * its branch length); among those, the one whose farthest tip on its side is nearest wins (the first on
// ties, with a start of 1.0). The root goes on that node's branch at half the difference, the branches above it are
// turned around, and the old top node, left with one child, is removed.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../host/parallel_for.hpp"
#include "../io/error.hpp"
#include "../phylo/distance_trees.hpp"
#include "progressive_steps.hpp"
#include "similarities.hpp"

// The float sums here are ClustalW's to the last bit: no multiply-add may be fused.
// (nvcc's front end refuses GCC's optimize pragmas; GCC fuses nothing on x86-64 without -mfma in any case.)
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

namespace cudp::msa {

struct GuideTreeNode {
  int parent = -1;
  int left = -1;
  int right = -1;
  float dist = 0;     // branch to the parent
  bool leaf = false;
  int order = 0;      // tips below the node (ClustalW's "order"; sequence weights divide by it)
  std::string name;   // tips only
};

struct RootedGuideTree {
  std::vector<GuideTreeNode> nodes;
  int root = -1;
  std::vector<int> tip_of_sequence;  // the node of each sequence
  bool has_distances = true;         // false when a tip had no branch length
};

namespace detail {

// Tip-to-ancestor path lengths as ClustalW sums them (in float, from the tip up), for every tip and ancestor at
// once. ClustalW finds where a tip's path meets another node's path by walking up from the tip and, at each step,
// searching the other path: O(depth^2) per pair. Here the tips are ranked in depth-first order over the parent
// links, so a node's tips are one range of ranks and the meeting points for one node's path are filled in for all
// tips in one pass; the sums are kept per tip, prefix by prefix, so each pair costs O(1).
class TipPaths {
 public:
  TipPaths(const std::vector<GuideTreeNode>& nodes, const std::vector<int>& tips) : nodes_(nodes) {
    const std::size_t count = nodes.size();
    depth_.assign(count, -1);
    std::vector<int> chain;
    for (std::size_t start = 0; start < count; ++start) {
      int p = static_cast<int>(start);
      while (p >= 0 && depth_[static_cast<std::size_t>(p)] < 0) {
        chain.push_back(p);
        p = nodes[static_cast<std::size_t>(p)].parent;
      }
      int d = p < 0 ? -1 : depth_[static_cast<std::size_t>(p)];
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) depth_[static_cast<std::size_t>(*it)] = ++d;
      chain.clear();
    }
    rank_.assign(count, -1);
    std::vector<char> is_tip(count, 0);
    for (const int t : tips) is_tip[static_cast<std::size_t>(t)] = 1;
    // Children from the parent links (what the walks follow), then ranks and ranges depth first.
    std::vector<int> first_child(count, -1), next_sibling(count, -1);
    for (std::size_t k = count; k-- > 0;) {
      const int up = nodes[k].parent;
      if (up < 0) continue;
      next_sibling[k] = first_child[static_cast<std::size_t>(up)];
      first_child[static_cast<std::size_t>(up)] = static_cast<int>(k);
    }
    lo_.assign(count, 0);
    hi_.assign(count, 0);
    int ranked = 0;
    std::vector<int> stack;
    for (std::size_t top = 0; top < count; ++top) {
      if (nodes[top].parent >= 0) continue;
      stack.push_back(static_cast<int>(top));
      lo_[top] = ranked;
      while (!stack.empty()) {
        const int p = stack.back();
        const auto up = static_cast<std::size_t>(p);
        if (lo_[up] == ranked && rank_[up] < 0 && is_tip[up]) rank_[up] = ranked++;
        // first_child is consumed as the walk goes down; a node is done when it has none left.
        const int child = first_child[up];
        if (child >= 0) {
          first_child[up] = next_sibling[static_cast<std::size_t>(child)];
          lo_[static_cast<std::size_t>(child)] = ranked;
          stack.push_back(child);
        } else {
          hi_[up] = ranked;
          stack.pop_back();
        }
      }
    }
    ranked_ = static_cast<std::size_t>(ranked);
    // Prefix sums per tip, when they fit: a very deep tree walks instead.
    offset_.assign(count, -1);
    std::size_t total = 0;
    for (std::size_t k = 0; k < count; ++k) {
      if (is_tip[k] && rank_[k] >= 0) total += static_cast<std::size_t>(depth_[k]) + 1;
    }
    if (total <= (std::size_t{1} << 26)) {
      // In rank order, so that a pass over the tips by rank reads them in order.
      std::vector<int> by_rank(ranked_, -1);
      for (std::size_t k = 0; k < count; ++k)
        if (is_tip[k] && rank_[k] >= 0) by_rank[static_cast<std::size_t>(rank_[k])] = static_cast<int>(k);
      sums_.reserve(total);
      for (const int tip : by_rank) {
        if (tip < 0) continue;
        const auto k = static_cast<std::size_t>(tip);
        offset_[k] = static_cast<long long>(sums_.size());
        float dist = 0;
        sums_.push_back(dist);
        for (int q = static_cast<int>(k); nodes[static_cast<std::size_t>(q)].parent >= 0;
             q = nodes[static_cast<std::size_t>(q)].parent) {
          dist += nodes[static_cast<std::size_t>(q)].dist;
          sums_.push_back(dist);
        }
      }
    }
  }

  int depth(int node) const { return depth_[static_cast<std::size_t>(node)]; }
  int rank(int tip) const { return rank_[static_cast<std::size_t>(tip)]; }
  // Whether `tip` lies below `node` (or is it).
  bool below(int tip, int node) const {
    const int r = rank_[static_cast<std::size_t>(tip)];
    return r >= lo_[static_cast<std::size_t>(node)] && r < hi_[static_cast<std::size_t>(node)];
  }

  // For the path `path` (a node and its ancestors, upwards): marks every tip, in `marks` (by rank; the caller's,
  // so that threads share the paths), with the index of the first node of the path above it (0 for the tips below
  // path[0]; -1 where the paths never meet).
  void meet(const std::vector<int>& path, std::vector<int>& marks) const {
    marks.assign(ranked_, -1);
    int inner_lo = 0, inner_hi = 0;
    for (std::size_t k = 0; k < path.size(); ++k) {
      const auto p = static_cast<std::size_t>(path[k]);
      const int lo = lo_[p], hi = hi_[p];
      if (k == 0) {
        std::fill(marks.begin() + lo, marks.begin() + hi, 0);
      } else {
        std::fill(marks.begin() + lo, marks.begin() + inner_lo, static_cast<int>(k));
        std::fill(marks.begin() + inner_hi, marks.begin() + hi, static_cast<int>(k));
      }
      inner_lo = lo;
      inner_hi = hi;
    }
  }
  // The meeting index of `tip` after meet(path, marks); -1 if none.
  int meeting(int tip, const std::vector<int>& marks) const {
    const int r = rank_[static_cast<std::size_t>(tip)];
    return r < 0 ? -1 : marks[static_cast<std::size_t>(r)];
  }

  // The branch lengths of `tip` and the `count` - 1 nodes above it, summed from the tip up in float.
  float up(int tip, int count) const {
    const long long at = offset_[static_cast<std::size_t>(tip)];
    if (at >= 0) return sums_[static_cast<std::size_t>(at + count)];
    float dist = 0;
    for (int q = tip; count > 0; --count, q = nodes_[static_cast<std::size_t>(q)].parent) {
      dist += nodes_[static_cast<std::size_t>(q)].dist;
    }
    return dist;
  }

 private:
  const std::vector<GuideTreeNode>& nodes_;
  std::vector<int> depth_;       // by node: links to its top
  std::vector<int> rank_;        // by node: a tip's depth-first rank, -1 otherwise
  std::vector<int> lo_, hi_;     // by node: the ranks of the tips below it
  std::size_t ranked_ = 0;       // tips ranked
  std::vector<long long> offset_;  // by node: a tip's sums in sums_, -1 if walked
  std::vector<float> sums_;
};

// ClustalW's tree reader and rooting over node indices; `created` is the order the reader made nodes in, `tips` the
// tips in file order.
class GuideTreeBuilder {
 public:
  GuideTreeBuilder(std::string_view text, std::string source, int threads = 1)
      : text_(text), source_(std::move(source)), threads_(threads) {}

  RootedGuideTree build(const std::vector<std::string>& names) {
    skip_space();
    if (at_ == text_.size() || text_[at_] != '(') fail("wrong format in tree file: it must start with '('");
    const int top = make();
    read(top, -1);
    if (tips_.size() != names.size()) {
      fail("tree not compatible with alignment: " + std::to_string(names.size()) + " sequences and " +
           std::to_string(tips_.size()) + " tips");
    }
    if (!tree_.has_distances && !rooted_) fail("the tree is unrooted and has no distances");
    check_parents();
    tree_.root = rooted_ ? top : reroot(top);
    check_parents();
    check_children(tree_.root);
    for (const int tip : tips_) {
      for (int p = tip; p >= 0; p = node(p).parent) ++node(p).order;
    }
    match_names(names);
    return std::move(tree_);
  }

 private:
  GuideTreeNode& node(int i) { return tree_.nodes[static_cast<std::size_t>(i)]; }
  int make() {
    tree_.nodes.emplace_back();
    return static_cast<int>(tree_.nodes.size()) - 1;
  }
  int get() { return at_ < text_.size() ? static_cast<unsigned char>(text_[at_++]) : EOF; }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  [[noreturn]] void fail(const std::string& what) const { throw io::InputError(source_ + ": " + what); }

  // Text that is not a tree ClustalW writes can leave its structure with a cycle, which the walks below would follow
  // for ever: every chain of parents must end, and the children below the root must form a tree.
  void check_parents() {
    std::vector<char> state(tree_.nodes.size(), 0);  // 0: not seen, 1: on the current chain, 2: ends
    for (std::size_t start = 0; start < state.size(); ++start) {
      std::size_t p = start;
      while (state[p] == 0) {
        state[p] = 1;
        const int up = tree_.nodes[p].parent;
        if (up < 0) break;
        p = static_cast<std::size_t>(up);
      }
      if (state[p] == 1 && tree_.nodes[p].parent >= 0) fail("malformed guide tree");
      for (std::size_t q = start; state[q] == 1;) {
        state[q] = 2;
        const int up = tree_.nodes[q].parent;
        if (up < 0) break;
        q = static_cast<std::size_t>(up);
      }
    }
  }
  void check_children(int root) {
    std::vector<char> seen(tree_.nodes.size(), 0);
    std::vector<int> stack{root};
    while (!stack.empty()) {
      const int p = stack.back();
      stack.pop_back();
      if (p < 0) continue;
      if (seen[static_cast<std::size_t>(p)]) fail("malformed guide tree");
      seen[static_cast<std::size_t>(p)] = 1;
      stack.push_back(node(p).left);
      stack.push_back(node(p).right);
    }
  }

  // One subtree into node `self` under `parent`; leaves c_ at the character after it. A third child makes a new
  // node that takes `self`'s place (and its branch length), which is returned.
  int read(int self, int parent) {
    skip_space();
    c_ = get();
    bool is_leaf = false;
    std::string name;
    if (c_ == '(') {
      created_.push_back(self);
      const int left = make(), right = make();
      node(self).left = left;
      node(self).right = right;
      node(left).parent = node(right).parent = self;
      read(left, self);
      if (c_ == ',') {
        read(right, self);
        if (c_ == ',') {
          const int joined = make();
          node(joined).left = self;
          node(self).parent = joined;
          node(joined).right = make();
          node(node(joined).right).parent = joined;
          created_.push_back(joined);
          self = joined;
          read(node(joined).right, joined);
          rooted_ = false;
        }
      }
      skip_space();
      c_ = get();
    } else {
      is_leaf = true;
      created_.push_back(self);
      tips_.push_back(self);
      while (c_ != EOF && c_ != ':' && c_ != ',' && c_ != ')') {
        if (name.size() < 150) name += static_cast<char>(c_);
        c_ = get();
      }
      if (c_ == EOF) fail("the tree ends inside a name");
      if (c_ != ':') tree_.has_distances = false;
    }
    float dist = 0;
    if (c_ == ':') {
      skip_space();
      const std::string rest(text_.substr(at_, 64));
      char* end = nullptr;
      dist = std::strtof(rest.c_str(), &end);
      at_ += static_cast<std::size_t>(end - rest.c_str());
      skip_space();
      c_ = get();
    }
    GuideTreeNode& n = node(self);
    n.parent = parent;
    n.leaf = is_leaf;
    n.dist = dist;
    n.name = std::move(name);
    if (is_leaf) n.left = n.right = -1;
    return self;
  }

  // A thread's scratch for side_difference.
  struct Side {
    std::vector<int> path;
    std::vector<float> to_node;  // to_node[k]: p's path up to path[k - 1]
    std::vector<int> meet;
  };

  // Mean tip distance on node p's side minus on the other side (ClustalW's calcMean), and the farthest tip: a tip
  // on the other side counts its path to where it meets p's path plus p's path up to there.
  float side_difference(const TipPaths& paths, int p, float& farthest, Side& side) const {
    side.path.clear();
    side.to_node.assign(1, 0.0f);
    float dist = 0;
    for (int q = p; q >= 0; q = tree_.nodes[static_cast<std::size_t>(q)].parent) {
      side.path.push_back(q);
      dist += tree_.nodes[static_cast<std::size_t>(q)].dist;
      side.to_node.push_back(dist);
    }
    paths.meet(side.path, side.meet);
    farthest = 0;
    float left_sum = 0, right_sum = 0;
    int left_count = 0, right_count = 0;
    for (const int tip : tips_) {
      const int meet = paths.meeting(tip, side.meet);
      if (meet < 0) fail("malformed guide tree");
      dist = paths.up(tip, paths.depth(tip) - paths.depth(side.path[static_cast<std::size_t>(meet)]));
      if (meet == 0) {
        right_sum += dist;
        ++right_count;
      } else {
        left_sum += dist;
        left_sum += side.to_node[static_cast<std::size_t>(meet)];
        ++left_count;
      }
      if (dist > farthest) farthest = dist;
    }
    return left_sum / static_cast<float>(left_count) - right_sum / static_cast<float>(right_count);
  }

  // Every place is tried on `threads_` threads (each place's numbers are its own), then chosen in ClustalW's order.
  int reroot(int top) {
    const TipPaths paths(tree_.nodes, tips_);
    std::vector<float> diffs(created_.size()), farthests(created_.size());
    host::parallel_for(created_.size(), threads_, [] { return Side{}; }, [&](Side& side, std::size_t k) {
      const int p = created_[k];
      if (tree_.nodes[static_cast<std::size_t>(p)].parent < 0) return;
      diffs[k] = side_difference(paths, p, farthests[k], side);
    });
    int chosen = top;
    float best_diff = 0, best_depth = 1.0f;
    bool first = true;
    for (std::size_t k = 0; k < created_.size(); ++k) {
      const int p = created_[k];
      if (node(p).parent < 0) continue;
      const float farthest = farthests[k];
      const float diff = diffs[k];
      if (diff == 0 || (diff > 0 && diff < 2 * node(p).dist)) {
        if (farthest < best_depth || first) {
          first = false;
          chosen = p;
          best_depth = farthest;
          best_diff = diff;
        }
      }
    }
    if (chosen == top) {
      best_diff = node(node(top).left).dist + node(node(top).right).dist;
      chosen = node(top).right;
    }
    return insert_root(chosen, best_diff);
  }

  // Puts a new root on p's branch at diff / 2 from p and turns the branches above it around (ClustalW's
  // insertRoot); the old top, left with one child, is dropped.
  int insert_root(int p, float diff) {
    const int root = make();
    const int t = node(p).parent;
    if (t < 0) fail("internal error: the root cannot go above the top node");
    float previous = node(t).dist;
    node(p).parent = root;
    const float old = node(p).dist;
    node(p).dist = diff / 2;
    if (node(p).dist < 0.0f) node(p).dist = 0.0f;
    if (node(p).dist > old) node(p).dist = old;
    node(t).dist = old - node(p).dist;
    node(root).left = t;
    node(root).right = p;
    node(root).parent = -1;
    node(root).dist = 0;
    node(root).leaf = false;
    if (node(t).left == p) {
      node(t).left = node(t).parent;
    } else {
      node(t).right = node(t).parent;
    }
    int prev = t;
    int q = node(t).parent;
    node(t).parent = root;
    while (q >= 0) {
      const bool via_left = node(q).left == prev;
      if (via_left) {
        node(q).left = node(q).parent;
      } else {
        node(q).right = node(q).parent;
      }
      node(q).parent = prev;
      const float d = node(q).dist;
      node(q).dist = previous;
      previous = d;
      prev = q;
      q = via_left ? node(q).left : node(q).right;
    }
    // prev is the old top; its remaining child takes its place.
    const int up = node(prev).parent;
    const bool keep_right = node(prev).left < 0;
    const int child = keep_right ? node(prev).right : node(prev).left;
    node(child).dist += node(prev).dist;
    node(child).parent = up;
    if (node(up).left == prev) {
      node(up).left = child;
    } else {
      node(up).right = child;
    }
    (keep_right ? node(prev).right : node(prev).left) = -1;
    return root;
  }

  static std::string folded(std::string_view name, bool blanks) {
    std::string out;
    for (std::size_t k = 0; k < name.size() && k < 150; ++k) {
      char c = name[k];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c | 0x20);
      if (blanks && c == ' ') c = '_';
      out += c;
    }
    return out;
  }

  void match_names(const std::vector<std::string>& names) {
    std::unordered_map<std::string, int> last;  // the last tip of each folded name, as ClustalW matches
    for (const int tip : tips_) last[folded(node(tip).name, false)] = tip;
    tree_.tip_of_sequence.assign(names.size(), -1);
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string wanted = folded(names[i], true);
      const auto found = last.find(wanted);
      if (found == last.end()) fail("tree not compatible with alignment: " + wanted + " not found");
      tree_.tip_of_sequence[i] = found->second;
    }
  }

  std::string_view text_;
  std::string source_;
  std::size_t at_ = 0;
  int c_ = 0;
  bool rooted_ = true;
  RootedGuideTree tree_;
  std::vector<int> created_;
  std::vector<int> tips_;
  int threads_ = 1;
};

}  // namespace detail

// Reads a .dnd text for sequences `names` (in alignment order) and roots it as ClustalW does; `source` names the
// text in errors (io::InputError). `threads` (0: all cores) try the root's places side by side.
inline RootedGuideTree read_clustal_guide_tree(std::string_view text, const std::vector<std::string>& names,
                                               const std::string& source = "guide tree", int threads = 1) {
  return detail::GuideTreeBuilder(text, source, threads).build(names);
}

// The order of ClustalW's profile alignments, children before parents, left before right, each step the sequences
// below the node's two children.
//
// ClustalW's groupSeqs walks the child links, a node making a step when it has a right child, and marks the
// sequences below its left child 1 and those below its right child 2 (a leaf child: the sequences of that tip).
// Here the tips are ranked in that walk's order, so that the tips below a node are one range of ranks, and every
// step is held as its two children's ranges.
inline ProgressiveSteps progressive_step_ranges(const RootedGuideTree& tree) {
  const std::size_t n = tree.tip_of_sequence.size();
  ProgressiveSteps out;
  out.sequences = n;
  if (n < 2) return out;
  const auto& nodes = tree.nodes;
  std::vector<int> lo(nodes.size(), 0), hi(nodes.size(), 0), rank(nodes.size(), -1), made;
  int ranked = 0;
  // Depth first over the child links, left before right; a node is finished when both children are.
  struct Visit {
    int node;
    int next;  // 0: left child next, 1: right child next, 2: done
  };
  std::vector<Visit> stack{{tree.root, 0}};
  lo[static_cast<std::size_t>(tree.root)] = 0;
  while (!stack.empty()) {
    Visit& v = stack.back();
    const GuideTreeNode& node = nodes[static_cast<std::size_t>(v.node)];
    if (v.next < 2) {
      const int child = v.next == 0 ? node.left : node.right;
      ++v.next;
      if (child < 0) continue;
      const auto c = static_cast<std::size_t>(child);
      lo[c] = ranked;
      if (nodes[c].leaf) {
        rank[c] = ranked++;
        hi[c] = ranked;
      } else {
        stack.push_back({child, 0});
      }
      continue;
    }
    hi[static_cast<std::size_t>(v.node)] = ranked;
    if (node.right >= 0) made.push_back(v.node);
    stack.pop_back();
  }
  // The sequences by their tip's rank (a tip may carry several sequences, a sequence no ranked tip); a range of
  // ranks becomes a range of the list through the count of sequences below each rank.
  std::vector<int> start(static_cast<std::size_t>(ranked) + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const int r = rank[static_cast<std::size_t>(tree.tip_of_sequence[i])];
    if (r >= 0) ++start[static_cast<std::size_t>(r) + 1];
  }
  for (std::size_t r = 1; r < start.size(); ++r) start[r] += start[r - 1];
  out.order.resize(static_cast<std::size_t>(start.back()));
  std::vector<int> next(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const int r = rank[static_cast<std::size_t>(tree.tip_of_sequence[i])];
    if (r >= 0) out.order[static_cast<std::size_t>(next[static_cast<std::size_t>(r)]++)] = static_cast<int>(i);
  }
  const auto at = [&](int r) { return start[static_cast<std::size_t>(r)]; };
  out.steps.reserve(made.size());
  for (const int m : made) {
    const GuideTreeNode& node = nodes[static_cast<std::size_t>(m)];
    const auto left = static_cast<std::size_t>(node.left), right = static_cast<std::size_t>(node.right);
    ProgressiveSteps::Sides sides;
    if (node.left >= 0) {
      sides.first_lo = at(lo[left]);
      sides.first_hi = at(hi[left]);
    }
    sides.second_lo = at(lo[right]);
    sides.second_hi = at(hi[right]);
    out.steps.push_back(sides);
  }
  return out;
}

// progressive_step_ranges as one mark per sequence a step: 1 or 2 (the two profiles joined) or 0 (not in this
// step). `threads` (0: all cores) fill the steps side by side.
inline std::vector<std::vector<int>> progressive_steps(const RootedGuideTree& tree, int threads = 1) {
  const ProgressiveSteps ranges = progressive_step_ranges(tree);
  std::vector<std::vector<int>> steps(ranges.size());
  host::parallel_for(ranges.size(), threads, [] { return 0; },
                     [&](int, std::size_t k) { steps[k] = ranges.marks(k); });
  return steps;
}

namespace detail {

// What a row of ClustalW's tree similarities needs of its sequence: the path from its tip up (with the float sums
// of the branch lengths up to each node) and where every other tip meets that path.
struct SimilarityPath {
  std::vector<int> path;
  std::vector<float> to_node;  // to_node[k]: the branch lengths of path[0..k], summed from the tip up
  std::vector<int> meet;       // by tip rank (TipPaths::meet)
};

inline void similarity_path(const std::vector<GuideTreeNode>& nodes, const TipPaths& paths, int tip,
                            SimilarityPath& out) {
  CUDP_NJ_NO_FP_CONTRACT
  out.path.clear();
  out.to_node.clear();
  float dist = 0;
  for (int p = tip; p >= 0; p = nodes[static_cast<std::size_t>(p)].parent) {
    out.path.push_back(p);
    dist += nodes[static_cast<std::size_t>(p)].dist;
    out.to_node.push_back(dist);
  }
  paths.meet(out.path, out.meet);
}

// The path length in float from the tip of `from` (similarity_path) to tip `tip`, as ClustalW sums it: the branch
// lengths from `tip` up to below the meeting node, plus those from the other tip. The same value either way round.
inline double path_length(const TipPaths& paths, const SimilarityPath& from, int tip) {
  CUDP_NJ_NO_FP_CONTRACT
  // The walk from `tip` starts at its parent, so a tip shared by two sequences meets its own path one up.
  const int meet = tip == from.path[0] ? 1 : paths.meeting(tip, from.meet);
  if (meet < 1 || static_cast<std::size_t>(meet) >= from.path.size()) {
    throw io::InputError("malformed guide tree: tips without a common ancestor");
  }
  const float dist = paths.up(tip, paths.depth(tip) - paths.depth(from.path[static_cast<std::size_t>(meet)]));
  return static_cast<float>(dist + from.to_node[static_cast<std::size_t>(meet) - 1]);
}

// A path length as ClustalW's identity: clamped to [0.01, 1], 100 - 100 * length.
inline double similarity_of_length(double length) {
  if (length < 0.01) length = 0.01;
  if (length > 1.0) length = 1.0;
  return 100.0 - length * 100.0;
}

}  // namespace detail

// ClustalW's similarity matrix from the rooted tree (which replaces the pairwise distances for the progressive
// stage): path lengths between tips in float, clamped to [0.01, 1], as 100 - 100 * length; 0 on the diagonal.
// `too_far` receives the pairs (i > j) whose path is longer than 1.1, which ClustalW warns about. `threads` (0: all
// cores) fill the rows side by side. 8 bytes a pair of sequences: TreeSimilarities computes the same values when
// asked instead.
inline phylo::DistanceMatrix tree_similarities(const RootedGuideTree& tree,
                                               std::vector<std::pair<int, int>>* too_far = nullptr,
                                               int threads = 1) {
  const std::size_t n = tree.tip_of_sequence.size();
  phylo::DistanceMatrix s(n);
  const detail::TipPaths paths(tree.nodes, tree.tip_of_sequence);
  // Rows a block, the blocks' far pairs kept apart and joined in order.
  constexpr std::size_t rows = 16;
  std::vector<std::vector<std::pair<int, int>>> far((n + rows - 1) / rows);
  host::parallel_for(far.size(), threads, [] { return detail::SimilarityPath{}; },
                     [&](detail::SimilarityPath& from, std::size_t item) {
    // The longest rows first: a block's cost grows with its row numbers.
    const std::size_t block = far.size() - 1 - item, first = block * rows;
    for (std::size_t i = std::max<std::size_t>(first, 1); i < std::min(n, first + rows); ++i) {
      detail::similarity_path(tree.nodes, paths, tree.tip_of_sequence[i], from);
      double* row = s.row(i);
      for (std::size_t j = 0; j < i; ++j) {
        const double length = detail::path_length(paths, from, tree.tip_of_sequence[j]);
        if (length > 1.1 && too_far) far[block].emplace_back(static_cast<int>(i), static_cast<int>(j));
        row[j] = detail::similarity_of_length(length);
      }
    }
  });
  if (too_far) {
    for (const auto& pairs : far) too_far->insert(too_far->end(), pairs.begin(), pairs.end());
  }
  return s;
}

// tree_similarities' values computed when asked, from the tree (which must outlive this): a row costs a pass over
// the tips; the mean over a guide-tree step's pairs costs a float sum a pair, since every pair across the step meets
// at the step's node (checked; other sides go pair by pair). Memory grows with the tree, not with the pairs.
class TreeSimilarities final : public Similarities {
 public:
  explicit TreeSimilarities(const RootedGuideTree& tree) : tree_(tree), paths_(tree.nodes, tree.tip_of_sequence) {
    // The sequences by their tip's rank, so that a row reads the meeting marks and the tips' sums in order.
    by_rank_.resize(tree.tip_of_sequence.size());
    for (std::size_t s = 0; s < by_rank_.size(); ++s) by_rank_[s] = static_cast<int>(s);
    std::stable_sort(by_rank_.begin(), by_rank_.end(), [&](int a, int b) {
      return paths_.rank(tree.tip_of_sequence[static_cast<std::size_t>(a)]) <
             paths_.rank(tree.tip_of_sequence[static_cast<std::size_t>(b)]);
    });
  }

  std::size_t size() const override { return tree_.tip_of_sequence.size(); }

  void row(std::size_t i, std::vector<double>& out, int threads = 1) const override {
    thread_local detail::SimilarityPath from;
    const auto& tips = tree_.tip_of_sequence;
    detail::similarity_path(tree_.nodes, paths_, tips[i], from);
    out.resize(tips.size());
    const detail::SimilarityPath& path = from;  // the calling thread's, read by all
    const auto fill = [&](std::size_t first, std::size_t last) {
      for (std::size_t k = first; k < last; ++k) {
        const auto j = static_cast<std::size_t>(by_rank_[k]);
        out[j] = j == i ? 0.0 : detail::similarity_of_length(detail::path_length(paths_, path, tips[j]));
      }
    };
    const std::size_t n = by_rank_.size();
    if (threads <= 1 || n < 8192) {
      fill(0, n);
      return;
    }
    const std::size_t parts = 4 * static_cast<std::size_t>(threads);
    host::parallel_for(parts, threads, [] { return 0; },
                       [&](int, std::size_t part) { fill(n * part / parts, n * (part + 1) / parts); });
  }

  double mean(const std::vector<int>& one, const std::vector<int>& two) const override {
    CUDP_NJ_NO_FP_CONTRACT
    double sum = 0.0;
    int pairs = 0;
    thread_local std::vector<double> values;
    if (one.size() == 1 || two.size() == 1) {  // along the lone sequence's row
      const bool lone_first = one.size() == 1;
      row(static_cast<std::size_t>(lone_first ? one.front() : two.front()), values);
      for (const int s : lone_first ? two : one) {
        ++pairs;
        sum += values[static_cast<std::size_t>(s)];
      }
      return sum / static_cast<float>(pairs);
    }
    if (!across_one_node(one, two, values)) {  // pair by pair, along the rows of the first side
      for (const int i : one) {
        row(static_cast<std::size_t>(i), values);
        for (const int j : two) {
          ++pairs;
          sum += values[static_cast<std::size_t>(j)];
        }
      }
      return sum / static_cast<float>(pairs);
    }
    // values: the first side's sums to the meeting node, then the second side's.
    const double* first = values.data();
    const double* second = values.data() + one.size();
    for (std::size_t a = 0; a < one.size(); ++a)
      for (std::size_t b = 0; b < two.size(); ++b) {
        ++pairs;
        sum += detail::similarity_of_length(static_cast<float>(static_cast<float>(first[a]) +
                                                               static_cast<float>(second[b])));
      }
    return sum / static_cast<float>(pairs);
  }

 private:
  // Whether every tip of `one` lies below one child of a node and every tip of `two` below another child of it;
  // if so, `sums` gets each tip's float sum of branch lengths up to that child (one's, then two's).
  bool across_one_node(const std::vector<int>& one, const std::vector<int>& two, std::vector<double>& sums) const {
    const auto& nodes = tree_.nodes;
    const auto tip = [&](int s) { return tree_.tip_of_sequence[static_cast<std::size_t>(s)]; };
    const auto child_towards = [&](int from, int other) {  // the node below their meeting on from's side
      int below = -1;
      for (int p = from; p >= 0 && !paths_.below(other, p); p = nodes[static_cast<std::size_t>(p)].parent) below = p;
      return below;
    };
    const int a = tip(one.front()), b = tip(two.front());
    if (a == b) return false;
    const int side1 = child_towards(a, b), side2 = child_towards(b, a);
    if (side1 < 0 || side2 < 0) return false;
    const int top = nodes[static_cast<std::size_t>(side1)].parent;
    if (top < 0 || top != nodes[static_cast<std::size_t>(side2)].parent) return false;
    sums.clear();
    for (const auto* side : {&one, &two}) {
      const int child = side == &one ? side1 : side2;
      for (const int s : *side) {
        const int t = tip(s);
        if (!paths_.below(t, child)) return false;
        sums.push_back(paths_.up(t, paths_.depth(t) - paths_.depth(top)));
      }
    }
    return true;
  }

  const RootedGuideTree& tree_;
  detail::TipPaths paths_;
  std::vector<int> by_rank_;  // the sequences by their tip's depth-first rank
};

// The order of profile alignments from UPGMA's joins (ClustalW takes them from the joins, not from a re-read tree):
// per join, the left cluster's sequences and the right's. Two sequences give no step, as in ClustalW. The
// sequences are listed depth first over the joins, so that every cluster is one range of the list.
inline ProgressiveSteps progressive_step_ranges(const std::vector<phylo::UpgmaJoin>& joins, std::size_t n) {
  ProgressiveSteps out;
  out.sequences = n;
  if (n < 3) return out;
  // Nodes: the sequences, then one per join over the clusters' nodes at that time.
  std::vector<int> current(n), left, right;
  for (std::size_t i = 0; i < n; ++i) current[i] = static_cast<int>(i);
  for (const phylo::UpgmaJoin& j : joins) {
    if (j.left < 0 || j.right < 0 || static_cast<std::size_t>(std::max(j.left, j.right)) >= n || j.left == j.right)
      throw std::invalid_argument("progressive_step_ranges: a join of clusters that are not sequences' numbers");
    left.push_back(current[static_cast<std::size_t>(j.left)]);
    right.push_back(current[static_cast<std::size_t>(j.right)]);
    current[static_cast<std::size_t>(j.left)] = static_cast<int>(n + left.size() - 1);
  }
  std::vector<int> lo(n + joins.size(), -1), hi(n + joins.size(), -1);
  // The tops (clusters never joined further) in sequence order, each depth first, left before right.
  std::vector<char> below(n + joins.size(), 0);
  for (std::size_t k = 0; k < joins.size(); ++k)
    below[static_cast<std::size_t>(left[k])] = below[static_cast<std::size_t>(right[k])] = 1;
  for (std::size_t top = 0; top < n + joins.size(); ++top) {
    if (below[top]) continue;
    std::vector<std::pair<int, bool>> stack{{static_cast<int>(top), false}};
    while (!stack.empty()) {
      auto [node, done] = stack.back();
      stack.pop_back();
      const auto u = static_cast<std::size_t>(node);
      if (u < n) {
        lo[u] = static_cast<int>(out.order.size());
        out.order.push_back(node);
        hi[u] = lo[u] + 1;
      } else if (done) {
        hi[u] = static_cast<int>(out.order.size());
      } else {
        lo[u] = static_cast<int>(out.order.size());
        stack.push_back({node, true});
        stack.push_back({right[u - n], false});
        stack.push_back({left[u - n], false});
      }
    }
  }
  for (std::size_t k = 0; k < joins.size(); ++k) {
    const auto a = static_cast<std::size_t>(left[k]), b = static_cast<std::size_t>(right[k]);
    out.steps.push_back({lo[a], hi[a], lo[b], hi[b]});
  }
  return out;
}

inline std::vector<std::vector<int>> progressive_steps(const std::vector<phylo::UpgmaJoin>& joins, std::size_t n) {
  const ProgressiveSteps ranges = progressive_step_ranges(joins, n);
  std::vector<std::vector<int>> steps;
  for (std::size_t k = 0; k < ranges.size(); ++k) steps.push_back(ranges.marks(k));
  return steps;
}

}  // namespace cudp::msa

#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#pragma GCC pop_options
#endif
