#pragma once
// Independent textbook implementations, full matrices and plain ints, that the library is checked against.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <random>
#include <vector>

namespace cudp::test {

enum class Mode { Local, Global, SemiGlobal };

// The reference's name for a library mode (kept apart so that this file stays independent of the library's code).
template <class LibraryMode>
constexpr Mode mode_of(LibraryMode mode) {
  return mode == LibraryMode::Local ? Mode::Local : mode == LibraryMode::Global ? Mode::Global : Mode::SemiGlobal;
}

// Gotoh's H matrix, (n + 1) x (m + 1), with a gap of length k costing open + k*extend.
template <class Matrix>
inline std::vector<std::vector<long>> reference_gotoh_h(Mode mode, const std::vector<std::uint8_t>& target,
                                                        const std::vector<std::uint8_t>& query, const Matrix& score,
                                                        int open, int extend) {
  const long NEG = LONG_MIN / 4;
  const std::size_t n = target.size(), m = query.size();
  std::vector<std::vector<long>> H(n + 1, std::vector<long>(m + 1, 0)), E = H, F = H;
  for (std::size_t i = 0; i <= n; ++i)
    for (std::size_t j = 0; j <= m; ++j) E[i][j] = F[i][j] = NEG;
  auto border = [&](std::size_t k) -> long { return (mode == Mode::Global && k > 0) ? -(open + static_cast<long>(k) * extend) : 0; };
  for (std::size_t i = 0; i <= n; ++i) H[i][0] = border(i);
  for (std::size_t j = 0; j <= m; ++j) H[0][j] = border(j);
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      E[i][j] = std::max(E[i][j - 1] - extend, H[i][j - 1] - open - extend);
      F[i][j] = std::max(F[i - 1][j] - extend, H[i - 1][j] - open - extend);
      long h = std::max({H[i - 1][j - 1] + score(target[i - 1], query[j - 1]), E[i][j], F[i][j]});
      if (mode == Mode::Local) h = std::max(h, 0L);
      H[i][j] = h;
    }
  return H;
}

// The optimal score of Gotoh in `mode`.
template <class Matrix>
inline long reference_gotoh(Mode mode, const std::vector<std::uint8_t>& target, const std::vector<std::uint8_t>& query,
                            const Matrix& score, int open, int extend) {
  const auto H = reference_gotoh_h(mode, target, query, score, open, extend);
  const std::size_t n = target.size(), m = query.size();
  if (mode == Mode::Global) return H[n][m];
  long best = mode == Mode::Local ? 0 : LONG_MIN / 4;
  if (mode == Mode::Local) {
    for (std::size_t i = 1; i <= n; ++i)
      for (std::size_t j = 1; j <= m; ++j) best = std::max(best, H[i][j]);
    return best;
  }
  for (std::size_t j = 1; j <= m; ++j) best = std::max(best, H[n][j]);
  for (std::size_t i = 1; i <= n; ++i) best = std::max(best, H[i][m]);
  return best;
}

inline int reference_levenshtein(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j - 1] + (a[i - 1] != b[j - 1]), prev[j] + 1, cur[j - 1] + 1});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// A random substitution matrix-like function object over `size` codes, symmetric, scores in [lo, hi].
struct RandomMatrix {
  int size;
  std::vector<int> s;
  RandomMatrix(int size_, int lo, int hi, std::uint64_t seed) : size(size_), s(size_ * size_) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> d(lo, hi);
    for (int a = 0; a < size; ++a)
      for (int b = 0; b <= a; ++b) s[a * size + b] = s[b * size + a] = (a == b ? std::abs(d(rng)) + 1 : d(rng));
  }
  int operator()(int a, int b) const { return s[a * size + b]; }
};

// A query whose best-scoring residue, repeated, scores past a 16-bit lane against itself (local) and whose
// problems are too wide for one (global): what makes the cascade rescore on the GPU.
template <class Matrix>
std::vector<std::uint8_t> overflowing_query(const Matrix& matrix, int alphabet) {
  int best = 0;
  for (int c = 1; c < alphabet; ++c)
    if (matrix(c, c) > matrix(best, best)) best = c;
  return std::vector<std::uint8_t>(32767 / matrix(best, best) + 300, static_cast<std::uint8_t>(best));
}

inline std::vector<std::uint8_t> random_codes(std::mt19937_64& rng, std::size_t n, int alphabet) {
  std::vector<std::uint8_t> v(n);
  std::uniform_int_distribution<int> d(0, alphabet - 1);
  for (auto& c : v) c = static_cast<std::uint8_t>(d(rng));
  return v;
}

// n codes of a mutated copy of `query` (non-empty), read round and round: 4% deletions, 4% insertions, 4%
// substitutions, so that boxes cut from the two hold long diagonals as well as gaps.
inline std::vector<std::uint8_t> mutated_copy(std::mt19937_64& rng, const std::vector<std::uint8_t>& query, std::size_t n,
                                              int alphabet) {
  std::vector<std::uint8_t> target;
  std::uniform_int_distribution<int> code(0, alphabet - 1), percent(0, 99);
  for (std::size_t k = 0; target.size() < n; k = (k + 1) % query.size()) {
    const int roll = percent(rng);
    if (roll < 4) continue;                                                 // deletion
    if (roll < 8) target.push_back(static_cast<std::uint8_t>(code(rng)));  // insertion
    target.push_back(roll < 12 ? static_cast<std::uint8_t>(code(rng)) : query[k]);
  }
  target.resize(n);
  return target;
}

// Sequences laid end to end, as the engine takes them.
struct CodesSet {
  std::vector<std::uint8_t> residues;
  std::vector<std::uint64_t> offsets{0};
  void add(const std::vector<std::uint8_t>& s) {
    residues.insert(residues.end(), s.begin(), s.end());
    offsets.push_back(residues.size());
  }
  std::size_t size() const { return offsets.size() - 1; }
  std::vector<std::uint8_t> get(std::size_t i) const {
    return {residues.begin() + offsets[i], residues.begin() + offsets[i + 1]};
  }
};

}  // namespace cudp::test
