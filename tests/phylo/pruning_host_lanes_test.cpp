// The host pruning tier's vector lanes (tiers/pruning_host_lanes.hpp) against its scalar loop (prune_pattern), to
// the bit: every child kind (tips by state, missing and ambiguous, partials, a child handed over as it is, a node
// with one child), rescaled patterns, double and single precision, each instruction set this processor runs.
#include "cudp/tiers/pruning_host.hpp"

#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <vector>

#include "cudp/recurrences/felsenstein.hpp"

namespace {

using cudp::tiers::PruningBuffers;
using cudp::tiers::PruningOperation;

template <class Real, int S>
void check_same_bits(int patterns, int categories, int tips) {
  using Policy = cudp::recurrences::FelsensteinPruning<Real, S>;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> uniform(0, 1);
  // Codes S + 1 and S + 2 are ambiguity sets.
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(tips) * patterns);
  for (auto& c : codes) c = static_cast<std::uint8_t>(random() % (S + 3));
  std::vector<Real> sets(2 * S);
  for (auto& x : sets) x = static_cast<Real>(random() % 2);
  // Entries near 1e-30 rescale nearly every pattern at every node.
  std::vector<Real> matrices(static_cast<std::size_t>(2 * tips) * categories * S * S);
  for (auto& m : matrices) m = static_cast<Real>(uniform(random) * 1e-30 / S);

  std::vector<PruningOperation> operations;
  std::vector<int> queue;
  for (int t = 0; t < tips; ++t) queue.push_back(t);
  std::size_t front = 0;
  int next = tips;
  while (queue.size() - front > 1) {
    const int a = queue[front], b = queue[front + 1];
    front += 2;
    operations.push_back({next, {a, b}, {a, b}});
    queue.push_back(next++);
  }
  operations.push_back({next - 1, {next - 1, 2}, {-1, 5}});  // a third child of the root
  operations.push_back({next, {3, -1}, {4, -1}});             // a node with one child

  std::vector<std::vector<Real>> partials;
  std::vector<std::vector<int>> exponents;
  auto run = [&](auto block) {
    partials.emplace_back(static_cast<std::size_t>(tips) * categories * patterns * S);
    exponents.emplace_back(static_cast<std::size_t>(tips) * patterns);
    PruningBuffers<Real> b;
    b.patterns = patterns;
    b.categories = categories;
    b.states = S;
    b.tips = tips;
    b.tip_codes = codes.data();
    b.code_sets = sets.data();
    b.partials = partials.back().data();
    b.exponents = exponents.back().data();
    b.matrices = matrices.data();
    for (int first = 0; first < patterns; first += 64)
      for (const PruningOperation& op : operations) block(b, op, first, std::min(patterns, first + 64));
  };
  run([](const PruningBuffers<Real>& b, const PruningOperation& op, int first, int last) {
    for (int p = first; p < last; ++p) cudp::tiers::prune_pattern<Policy>(b, op, p);
  });
  run(cudp::tiers::pruning_lanes::prune_block_baseline<Policy, Real, 64>);
#if defined(CUDP_HAS_PRUNING_LANES_AVX2)
  if (cudp::tiers::pruning_lanes::host_has_avx2()) run(cudp::tiers::pruning_lanes::prune_block_avx2<Policy, Real, 64>);
#endif
  int rescaled = 0;
  for (int e : exponents[0]) rescaled += e != 0;
  CHECK(rescaled > patterns);
  for (std::size_t k = 1; k < partials.size(); ++k) {
    CHECK(std::memcmp(partials[0].data(), partials[k].data(), partials[0].size() * sizeof(Real)) == 0);
    CHECK(exponents[0] == exponents[k]);
  }
}

}  // namespace

#if defined(CUDP_HAS_PRUNING_LANES)
TEST_CASE("pruning lanes: the scalar tier's bits in double precision") {
  check_same_bits<double, 2>(100, 1, 5);
  check_same_bits<double, 4>(300, 4, 12);
  check_same_bits<double, 20>(200, 3, 9);
  check_same_bits<double, 61>(100, 2, 7);
}

TEST_CASE("pruning lanes: the scalar tier's bits in single precision") {
  check_same_bits<float, 4>(300, 4, 12);
  check_same_bits<float, 20>(200, 3, 9);
  check_same_bits<float, 61>(70, 2, 5);
}
#endif
