// libFuzzer target for the Newick reader. Malformed input must end in io::InputError; any other exception, a crash,
// a hang or a sanitizer report is a bug, and so is a tree that breaks the invariants below or does not survive a
// write and a second parse.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "cudp/phylo/newick.hpp"

namespace {

void check(const cudp::phylo::Tree& tree) {
  const auto count = static_cast<int>(tree.nodes.size());
  if (count == 0 || tree.root != 0 || tree.nodes[0].parent != -1) __builtin_trap();
  std::unordered_set<std::string> tips;
  for (int i = 0; i < count; ++i) {
    const cudp::phylo::TreeNode& node = tree.nodes[static_cast<std::size_t>(i)];
    if (i != tree.root) {
      // Every non-root node has a parent, numbered before it, that lists it exactly once.
      if (node.parent < 0 || node.parent >= i) __builtin_trap();
      int listed = 0;
      for (const int c : tree.nodes[static_cast<std::size_t>(node.parent)].children) listed += c == i ? 1 : 0;
      if (listed != 1) __builtin_trap();
    }
    for (const int c : node.children) {
      if (c <= i || c >= count || tree.nodes[static_cast<std::size_t>(c)].parent != i) __builtin_trap();
    }
    if (node.has_length && (!std::isfinite(node.length) || node.length < 0 || std::signbit(node.length))) {
      __builtin_trap();
    }
    if (!node.has_length && node.length != 0) __builtin_trap();
    if (node.children.empty() && (node.label.empty() || !tips.insert(node.label).second)) __builtin_trap();
  }
  if (tree.postorder().size() != tree.nodes.size() || tree.postorder().back() != tree.root) __builtin_trap();
  if (tree.tips().size() != tips.size() || tree.tip_count() != static_cast<int>(tips.size())) __builtin_trap();
}

bool same(const cudp::phylo::Tree& a, const cudp::phylo::Tree& b) {
  if (a.nodes.size() != b.nodes.size()) return false;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const cudp::phylo::TreeNode& x = a.nodes[i];
    const cudp::phylo::TreeNode& y = b.nodes[i];
    if (x.parent != y.parent || x.children != y.children || x.label != y.label || x.has_length != y.has_length ||
        x.length != y.length) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cudp::phylo::Tree tree;
  try {
    tree = cudp::phylo::parse_newick(text, "fuzz.nwk");
  } catch (const cudp::io::InputError&) {
    return 0;
  }
  check(tree);
  // What the writer makes of an accepted tree must read back as the same tree, node for node.
  try {
    if (!same(cudp::phylo::parse_newick(cudp::phylo::write_newick(tree), "written.nwk"), tree)) __builtin_trap();
  } catch (const cudp::io::InputError&) {
    __builtin_trap();
  }
  return 0;
}
