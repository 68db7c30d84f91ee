#pragma once
// Independent textbook implementations in plain 64-bit ints that the library is checked against: the DP row by row,
// its scores in linear memory (a pair of 10M cells in well under a second), H as a full matrix where a test wants it.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace cudp::test {

enum class Mode { Local, Global, SemiGlobal };

// The reference's name for a library mode (kept apart so that this file stays independent of the library's code).
template <class LibraryMode>
constexpr Mode mode_of(LibraryMode mode) {
  return mode == LibraryMode::Local ? Mode::Local : mode == LibraryMode::Global ? Mode::Global : Mode::SemiGlobal;
}

// Gotoh's DP, a gap of length k costing open + k*extend: `row(i, H)` is handed H(i, 0..m) for i = 0..n in turn.
template <class Matrix, class Row>
inline void reference_gotoh_rows(Mode mode, const std::vector<std::uint8_t>& target,
                                 const std::vector<std::uint8_t>& query, const Matrix& score, int open, int extend,
                                 Row&& row) {
  const long NEG = LONG_MIN / 4;
  const std::size_t n = target.size(), m = query.size();
  auto border = [&](std::size_t k) -> long {
    return (mode == Mode::Global && k > 0) ? -(open + static_cast<long>(k) * extend) : 0;
  };
  // H and F hold row i-1 until column j of row i overwrites them; E(i, j) needs only E(i, j-1).
  std::vector<long> H(m + 1), F(m + 1, NEG);
  for (std::size_t j = 0; j <= m; ++j) H[j] = border(j);
  row(std::size_t{0}, static_cast<const std::vector<long>&>(H));
  for (std::size_t i = 1; i <= n; ++i) {
    long diagonal = H[0], E = NEG;
    H[0] = border(i);
    for (std::size_t j = 1; j <= m; ++j) {
      E = std::max(E - extend, H[j - 1] - open - extend);
      F[j] = std::max(F[j] - extend, H[j] - open - extend);
      long h = std::max({diagonal + score(target[i - 1], query[j - 1]), E, F[j]});
      if (mode == Mode::Local) h = std::max(h, 0L);
      diagonal = H[j];
      H[j] = h;
    }
    row(i, static_cast<const std::vector<long>&>(H));
  }
}

// Gotoh's H matrix, (n + 1) x (m + 1).
template <class Matrix>
inline std::vector<std::vector<long>> reference_gotoh_h(Mode mode, const std::vector<std::uint8_t>& target,
                                                        const std::vector<std::uint8_t>& query, const Matrix& score,
                                                        int open, int extend) {
  std::vector<std::vector<long>> H;
  H.reserve(target.size() + 1);
  reference_gotoh_rows(mode, target, query, score, open, extend,
                       [&](std::size_t, const std::vector<long>& h) { H.push_back(h); });
  return H;
}

// The optimal score of Gotoh in `mode`, in O(m) memory.
template <class Matrix>
inline long reference_gotoh(Mode mode, const std::vector<std::uint8_t>& target, const std::vector<std::uint8_t>& query,
                            const Matrix& score, int open, int extend) {
  const std::size_t n = target.size(), m = query.size();
  long best = mode == Mode::Local ? 0 : LONG_MIN / 4;
  reference_gotoh_rows(mode, target, query, score, open, extend, [&](std::size_t i, const std::vector<long>& H) {
    if (mode == Mode::Global) {
      if (i == n) best = H[m];
    } else if (mode == Mode::Local) {
      if (i > 0 && m > 0) best = std::max(best, *std::max_element(H.begin() + 1, H.end()));
    } else {
      if (i == n)
        for (std::size_t j = 1; j <= m; ++j) best = std::max(best, H[j]);
      if (i > 0) best = std::max(best, H[m]);
    }
  });
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

// The residue that scores best against itself.
template <class Matrix>
int best_residue(const Matrix& matrix, int alphabet) {
  int best = 0;
  for (int c = 1; c < alphabet; ++c)
    if (matrix(c, c) > matrix(best, best)) best = c;
  return best;
}

// A query whose best-scoring residue, repeated, scores past a 16-bit lane against itself (local) and whose
// problems are too wide for one (global): what makes the cascade rescore on the GPU.
template <class Matrix>
std::vector<std::uint8_t> overflowing_query(const Matrix& matrix, int alphabet) {
  const int best = best_residue(matrix, alphabet);
  return std::vector<std::uint8_t>(32767 / matrix(best, best) + 300, static_cast<std::uint8_t>(best));
}

// Global scores below a 16-bit lane's minus infinity (-16384) from a pair whose highest conceivable score is well
// inside 16 bits, so that only a bound from below keeps it out of the lane: 2000 residues of the best-scoring
// residue against 16000 of the residue that scores worst against it. Where that worst score is -2 or less and gaps
// extend at 1 or more, every residue of the pair costs at least 1.
struct UnderflowingPair {
  std::vector<std::uint8_t> query, target;
};
template <class Matrix>
UnderflowingPair underflowing_pair(const Matrix& matrix, int alphabet) {
  const int best = best_residue(matrix, alphabet);
  int worst = 0;
  for (int c = 1; c < alphabet; ++c)
    if (matrix(best, c) < matrix(best, worst)) worst = c;
  return {std::vector<std::uint8_t>(2000, static_cast<std::uint8_t>(best)),
          std::vector<std::uint8_t>(16000, static_cast<std::uint8_t>(worst))};
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

// `score(target)` for every target of `db` (a textbook DP), on every core, longest targets first: the reference
// for a whole database, long pairs included, in seconds. `score` must not throw (nor call REQUIRE).
template <class Score>
std::vector<long> reference_scores(const CodesSet& db, Score score) {
  std::vector<std::size_t> order(db.size());
  for (std::size_t t = 0; t < order.size(); ++t) order[t] = t;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return db.offsets[a + 1] - db.offsets[a] > db.offsets[b + 1] - db.offsets[b];
  });
  std::vector<long> scores(db.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k; (k = next.fetch_add(1)) < order.size();) scores[order[k]] = score(db.get(order[k]));
  };
  std::vector<std::thread> helpers(std::max(1u, std::thread::hardware_concurrency()) - 1);
  for (auto& h : helpers) h = std::thread(work);
  work();
  for (auto& h : helpers) h.join();
  return scores;
}

}  // namespace cudp::test
