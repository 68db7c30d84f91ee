#pragma once
// Trees from a distance matrix: neighbour-joining (Saitou and Nei) and UPGMA, each with ClustalW 2.1's arithmetic,
// so that a guide tree built here is the one clustalw builds, to the last printed digit.
//
// Neighbour-joining. Of the pairs (i, j) of active nodes, i < j, the one minimising
//   (n - 2) * d(i, j) + 2 * S - r(i) - r(j)
// is joined (S: the sum of all distances between active nodes, r: a node's row sum), the first in (j, i) order
// on ties. The row sums are updated in place after each join rather than recomputed, in ClustalW's order, because
// the comparison of nearly equal totals depends on that rounding. The new node takes the smaller index i; its distance
// to k is (d(i, k) + d(j, k)) / 2 (the branch lengths are subtracted later, through `av`, a node's half distance
// to its last join). Branch lengths below 1e-4 in magnitude become 0, so slightly negative ones survive; the last
// three nodes form the unrooted tree's trichotomy.
//
// UPGMA. ClustalW keeps, for every node, its smallest distance to a node before it in the input order, and joins the
// node whose remembered minimum is smallest (the earliest on ties) with the node that minimum points to. The
// remembered minima are updated lazily with a relative tolerance of 1e-14 rather than recomputed, so on
// nearly equal distances the pair joined may differ from a fresh search; that is kept, since it decides the tree.
// Distances of a joined node are the size-weighted means; a join's height is half its distance.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../host/default_init_allocator.hpp"
#include "../host/host_cores.hpp"
#include "../host/parallel_for.hpp"
#include "newick.hpp"

// Neighbour-joining's totals are compared to the last bit, so no multiply-add may be fused.
#if defined(__clang__)
#define CUDP_NJ_NO_FP_CONTRACT _Pragma("clang fp contract(off)")
#else
#define CUDP_NJ_NO_FP_CONTRACT
#endif
// (nvcc's front end refuses GCC's optimize pragmas; GCC fuses nothing on x86-64 without -mfma in any case.)
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

namespace cudp::phylo {

// A symmetric matrix of n x n distances, held as its lower triangle with the diagonal: 8 bytes a pair of nodes
// (40 GB at n = 100,000). The diagonal is 0 unless set.
class DistanceMatrix {
 public:
  // Zeroed by many threads: a serial fill of 40 GB takes half a minute and places every page near one core.
  using Cells = std::vector<double, host::DefaultInitAllocator<double>>;
  DistanceMatrix() = default;
  explicit DistanceMatrix(std::size_t n) : n_(n), d_(n * (n + 1) / 2) {
    const std::size_t parts = d_.size() < (std::size_t{1} << 24) ? 1 : 64;
    host::parallel_for(parts, parts == 1 ? 1 : 0, [] { return 0; }, [&](int, std::size_t k) {
      std::fill(d_.data() + d_.size() * k / parts, d_.data() + d_.size() * (k + 1) / parts, 0.0);
    });
  }

  std::size_t size() const { return n_; }
  double operator()(std::size_t i, std::size_t j) const { return i >= j ? d_[start(i) + j] : d_[start(j) + i]; }
  // Sets (i, j), which is (j, i).
  void set(std::size_t i, std::size_t j, double value) { (i >= j ? d_[start(i) + j] : d_[start(j) + i]) = value; }
  // d(i, 0), ..., d(i, i), one after another.
  const double* row(std::size_t i) const { return d_.data() + start(i); }
  double* row(std::size_t i) { return d_.data() + start(i); }
  // Every value held: the rows 0..n-1 of the lower triangle, one after another.
  const Cells& cells() const { return d_; }

 private:
  static std::size_t start(std::size_t i) { return i * (i + 1) / 2; }
  std::size_t n_ = 0;
  Cells d_;
};

// One neighbour-joining step: nodes `left` < `right` joined; the new node is numbered `left`.
struct NeighborJoin {
  int left = 0;
  int right = 0;
  double left_length = 0;
  double right_length = 0;
};

// The joins in order, then the last three nodes (ascending) and their branches to the centre.
struct NeighborJoiningTree {
  std::vector<NeighborJoin> joins;
  std::array<int, 3> last{};
  std::array<double, 3> last_lengths{};
};

namespace detail {

// Zeroes tiny branch lengths, as ClustalW does.
inline double nj_branch(double length) { return std::fabs(length) < 0.0001 ? 0.0 : length; }

}  // namespace detail

namespace detail {

// A team of threads for the many short parallel parts of one neighbour-joining run: each join has four, of tens of
// microseconds at 10,000 nodes, too short for workers woken through a condition variable at every part
// (host::parallel_for), so the workers spin between parts, and sleep only after a while without one. A part is a
// number of items handed out one at a time, and it is over when every item is, not when every worker has taken
// some: a worker off its core (more threads than free cores) delays a part by at most the item it holds.
class NjTeam {
 public:
  explicit NjTeam(int threads) : size_(std::max(1, threads)) {
    workers_.reserve(static_cast<std::size_t>(size_ - 1));
    for (int t = 1; t < size_; ++t) workers_.emplace_back([this] { serve(); });
  }
  NjTeam(const NjTeam&) = delete;
  NjTeam& operator=(const NjTeam&) = delete;
  ~NjTeam() {
    stop_.store(true);
    generation_.fetch_add(1);
    wake();
    for (auto& w : workers_) w.join();
  }
  int size() const { return size_; }

  // Calls task(item) for every item in [0, items), the calling thread among the team, and returns once all have
  // returned; the first exception caught is rethrown.
  template <class Task>
  void run(std::size_t items, Task& task) {
    if (size_ == 1 || items <= 1) {
      for (std::size_t k = 0; k < items; ++k) task(k);
      return;
    }
    task_ = &task;
    call_ = [](void* f, std::size_t k) { (*static_cast<Task*>(f))(k); };
    done_.store(0);
    claim_.store(static_cast<std::uint64_t>(items) << 32);
    generation_.fetch_add(1);
    wake();
    work();
    wait_until([&] { return done_.load() == items; });
    if (failed_.load()) {
      failed_.store(false);
      std::rethrow_exception(std::exchange(failure_, nullptr));
    }
  }

  // The start of chunk `k` of `chunks` over `count` items (k = chunks: the end).
  static std::size_t share(std::size_t count, std::size_t k, std::size_t chunks) { return count * k / chunks; }

 private:
  // Spins (about a tenth of a millisecond) until done(), then sleeps until a wake() finds it so. Every store that
  // done() reads is sequentially consistent, as is the count of sleepers, so a store and its wake() cannot both
  // miss a sleeper that has not yet seen it.
  template <class Done>
  void wait_until(Done done) {
    for (int spins = 0; spins < 4096; ++spins) {
      if (done()) return;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
      __builtin_ia32_pause();
#endif
    }
    std::unique_lock<std::mutex> hold(lock_);
    sleepers_.fetch_add(1);
    while (!done()) asleep_.wait(hold);
    sleepers_.fetch_sub(1);
  }
  void wake() {
    if (sleepers_.load() == 0) return;
    const std::lock_guard<std::mutex> hold(lock_);
    asleep_.notify_all();
  }
  // Takes the items of the part under way while there are any. The claim holds the part's item count beside the
  // next item, so that an item taken is always one of the part under way, whose task is task_, however late the
  // worker (the part cannot end, nor the next begin, while an item is not taken).
  void work() {
    std::uint64_t claim = claim_.load();
    while (true) {
      const std::uint64_t items = claim >> 32;
      if ((claim & 0xffffffffu) >= items) return;
      if (!claim_.compare_exchange_weak(claim, claim + 1)) continue;
      try {
        call_(task_, static_cast<std::size_t>(claim & 0xffffffffu));
      } catch (...) {
        const std::lock_guard<std::mutex> hold(lock_);
        if (!failed_.load()) failure_ = std::current_exception();
        failed_.store(true);
      }
      if (done_.fetch_add(1) + 1 == items) wake();
      claim = claim_.load();
    }
  }
  void serve() {
    unsigned seen = 0;
    while (true) {
      wait_until([&] { return generation_.load() != seen; });
      seen = generation_.load();
      if (stop_.load()) return;
      work();
    }
  }

  int size_;
  std::vector<std::thread> workers_;
  std::atomic<unsigned> generation_{0};   // one more a part
  std::atomic<std::uint64_t> claim_{0};   // the part's item count (high half), then the next item
  std::atomic<std::size_t> done_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false}, failed_{false};
  std::exception_ptr failure_;
  std::mutex lock_;
  std::condition_variable asleep_;
  void* task_ = nullptr;
  void (*call_)(void*, std::size_t) = nullptr;
};

// The search for ClustalW's pair without reading every total (after RapidNJ: Simonsen, Mailund and Pedersen 2008).
// Every node keeps a list of its distances, sorted (a joined node's only as far as it is read), to the nodes older
// than itself (an input node is older than
// the input nodes after it; a joined node is newer than every node), so each pair of active nodes is in exactly one
// list. A list is read from its smallest distance up, and left once a bound on its totals exceeds the best total
// found: with d at least the list's distance and the other row sum at most r_max, the largest of the active nodes
// older than i (those of i's list; tighter than all nodes' largest for the older lists), every total of node i is
// at least min(((o * d + c) - r_max) - r(i), ((o * d + c) - r(i)) - r_max); rounding is monotone in each operand, so
// the bound holds for the computed totals too, and a tie with the best is never skipped. Pairs that pass are
// computed as ClustalW computes them and compared by (total, larger node, smaller node): the first minimum of its
// scan. The lists hold floats rounded down, so they take half the matrix; entries of nodes since joined or
// rebuilt are dropped as they are met. A joined node's list is filled beside the matrix's updates.
//
// On several threads each thread reads its share of the lists with a best of its own, and the bests are merged in
// the same order. (total, larger node, smaller node) orders all pairs, so the smallest of the threads' smallest is
// the pair one thread finds; a bound skips only totals above some pair's total, so a thread may prune with the best
// any thread has found so far (one shared value) without ever skipping that pair.
struct NjCandidate {
  double value = 0;
  int high = -1, low = -1;  // the pair's nodes, high > low; high < 0: none yet

  // Whether (value, high, low) comes first in ClustalW's scan; a NaN never does, nor anything not below the
  // start value.
  bool beaten_by(double v, int h, int l) const {
    if (v < value) return true;
    return v == value && high >= 0 && (h < high || (h == high && l < low));
  }
};

class NjSearch {
 public:
  NjSearch(const DistanceMatrix& d, const std::vector<double>& r, NjTeam& team)
      : n_(d.size()),
        d_(d),
        r_(r),
        team_(team),
        lists_(n_),
        start_(n_, 0),
        sorted_(n_, 0),
        key_(n_),
        head_node_(n_, -1),
        head_float_(n_, 0.0f),
        head_distance_(n_, 0.0),
        chunks_(team.size() == 1 ? 1 : 4 * static_cast<std::size_t>(team.size())) {
    for (std::size_t i = 0; i < n_; ++i) key_[i] = static_cast<int>(i);
    // Allocated here, filled on the threads: memory a thread allocates stays with that thread's arena when freed,
    // where the lists of joined nodes (allocated on this thread) would not find it again.
    for (std::size_t i = 0; i < n_; ++i) lists_[i].reserve(i);
    // The longest lists first, a block at a time, so that the threads finish together.
    constexpr std::size_t block = 16;
    auto build = [&](std::size_t b) {
      std::vector<Entry> tmp;
      for (std::size_t i = n_ - b * block; i-- > n_ - std::min(n_, (b + 1) * block);) {
        auto& list = lists_[i];
        list.resize(i);
        const double* row = d_.row(i);
        for (std::size_t j = 0; j < i; ++j) list[j] = entry(row[j], static_cast<int>(j));
        sort(list, tmp);
        sorted_[i] = i;
      }
    };
    team_.run((n_ + block - 1) / block, build);
  }

  // The pair to join among `active`; none (high < 0) if no total is below `start`. `older_max` holds, by node, at
  // least the row sums of the active nodes older than it, those of its list.
  NjCandidate search(const std::vector<int>& active, double others, double c, double start,
                     const std::vector<double>& older_max) {
    const std::size_t count = active.size();
    NjCandidate best;
    best.value = start;
    // Each list's first live pair, for a low best before the lists are read.
    bests_.assign(chunks_, best);
    auto first = [&](std::size_t chunk) {
      CUDP_NJ_NO_FP_CONTRACT
      NjCandidate& mine = bests_[chunk];
      for (std::size_t k = NjTeam::share(count, chunk, chunks_); k < NjTeam::share(count, chunk + 1, chunks_); ++k) {
        const int i = active[k];
        const auto ui = static_cast<std::size_t>(i);
        // A live head stays the list's first live pair (lists only lose pairs), so the list is read only when
        // its head has gone.
        int j = head_node_[ui];
        if (j < 0 || !live(i, j)) {
          const auto& list = lists_[ui];
          std::size_t at = start_[ui];
          while (at < list.size()) {
            if (at == sorted_[ui]) extend(ui);
            if (live(i, list[at].node)) break;
            ++at;
          }
          start_[ui] = at;
          if (at == list.size()) {
            head_node_[ui] = -1;
            continue;
          }
          j = list[at].node;
          head_node_[ui] = j;
          head_float_[ui] = list[at].distance;
          head_distance_[ui] = d_(ui, static_cast<std::size_t>(j));
        }
        offer(i, j, head_distance_[ui], others, c, mine);
      }
    };
    team_.run(chunks_, first);
    for (const NjCandidate& b : bests_) {
      if (b.high >= 0 && best.beaten_by(b.value, b.high, b.low)) best = b;
    }
    bound_.store(best.value, std::memory_order_relaxed);
    // The lists in blocks handed out as the threads ask: the lengths read differ.
    const std::size_t blocks = std::min(count, 2 * chunks_);
    bests_.assign(blocks, best);
    auto scan = [&](std::size_t b) {
      for (std::size_t k = NjTeam::share(count, b, blocks); k < NjTeam::share(count, b + 1, blocks); ++k) {
        read(active[k], others, c, older_max[static_cast<std::size_t>(active[k])], bests_[b]);
      }
    };
    team_.run(blocks, scan);
    for (const NjCandidate& b : bests_) {
      if (b.high >= 0 && best.beaten_by(b.value, b.high, b.low)) best = b;
    }
    return best;
  }

  // After a join into `kept` (cycle `cycle`): `gone`'s list is dropped and `kept`'s is the one fresh() handed out,
  // filled with its distances to every other active node (by fill()), sorted.
  void joined(int kept, int gone, int cycle) {
    key_[static_cast<std::size_t>(gone)] = dead;
    std::vector<Entry>().swap(lists_[static_cast<std::size_t>(gone)]);
    if (kept == gone) return;
    key_[static_cast<std::size_t>(kept)] = static_cast<int>(n_) + cycle;
    auto& list = lists_[static_cast<std::size_t>(kept)];
    list.swap(fresh_);
    // Sorted only as far as it is read: most lists are left after a few entries.
    sorted_[static_cast<std::size_t>(kept)] = 0;
    extend(static_cast<std::size_t>(kept));
    start_[static_cast<std::size_t>(kept)] = 0;
    head_node_[static_cast<std::size_t>(kept)] = -1;
  }

  // A list for the next joined node, of `size` entries, to be filled by fill() (threads may fill apart).
  void fresh(std::size_t size) { fresh_.resize(size); }
  void fill(std::size_t at, double d, int node) { fresh_[at] = entry(d, node); }

 private:
  struct Entry {
    float distance;  // at most the distance
    int node;
  };
  static constexpr int dead = std::numeric_limits<int>::max();

  // A NaN distance is listed as infinite, last: the bounds stop before it, or (a NaN in the sum of all distances,
  // where no bound holds) the pair is offered, and its NaN total never wins.
  static Entry entry(double d, int node) {
    if (d != d) return {HUGE_VALF, node};
    float f = static_cast<float>(d);
    if (static_cast<double>(f) > d) {  // the next float down (f is not +0 here: d would be at least 0)
      std::uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      bits = (bits & 0x80000000u) ? bits + 1 : bits - 1;
      std::memcpy(&f, &bits, sizeof bits);
    }
    return {f, node};
  }
  // By distance; the order of equal distances does not matter, as the pair found does not depend on the order the
  // pairs are read in. A radix sort on the floats' bits (made unsigned and ordered) for all but short lists.
  static void sort(std::vector<Entry>& list, std::vector<Entry>& tmp) {
    const std::size_t size = list.size();
    if (size < 256) {
      std::sort(list.begin(), list.end(), [](const Entry& a, const Entry& b) { return a.distance < b.distance; });
      return;
    }
    const auto key = [](const Entry& e) {
      std::uint32_t bits;
      std::memcpy(&bits, &e.distance, sizeof bits);
      return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
    };
    std::array<std::array<std::size_t, 256>, 4> counts{};
    for (const Entry& e : list) {
      const std::uint32_t k = key(e);
      for (int digit = 0; digit < 4; ++digit) ++counts[static_cast<std::size_t>(digit)][(k >> (8 * digit)) & 255u];
    }
    tmp.resize(size);
    Entry* from = list.data();
    Entry* to = tmp.data();
    for (int digit = 0; digit < 4; ++digit) {
      auto& count = counts[static_cast<std::size_t>(digit)];
      if (std::find(count.begin(), count.end(), size) != count.end()) continue;  // one value of this digit
      std::size_t sum = 0;
      for (auto& c : count) {
        const std::size_t here = c;
        c = sum;
        sum += here;
      }
      for (const Entry* e = from; e != from + size; ++e) to[count[(key(*e) >> (8 * digit)) & 255u]++] = *e;
      std::swap(from, to);
    }
    if (from != list.data()) std::copy(from, from + size, list.data());
  }
  // Sorts more of node u's list: the next entries by distance, all at most those after them (a list's entries from
  // sorted_ on are the larger ones, in no order). Each step takes as many as the list has sorted, at least 1024.
  void extend(std::size_t u) {
    auto& list = lists_[u];
    const std::size_t from = sorted_[u];
    if (from >= list.size()) return;
    const std::size_t to = std::min(list.size(), from + std::max<std::size_t>(1024, from));
    const auto by_distance = [](const Entry& a, const Entry& b) { return a.distance < b.distance; };
    const auto first = list.begin() + static_cast<std::ptrdiff_t>(from);
    const auto last = list.begin() + static_cast<std::ptrdiff_t>(to);
    if (to < list.size()) std::nth_element(first, last - 1, list.end(), by_distance);
    std::sort(first, last, by_distance);
    sorted_[u] = to;
  }
  // Whether the pair (i, j) belongs to i's list now.
  bool live(int i, int j) const { return key_[static_cast<std::size_t>(j)] < key_[static_cast<std::size_t>(i)]; }
  // ClustalW's total of the pair at distance `dij`, the smaller node's row sum taken first.
  bool offer(int i, int j, double dij, double others, double c, NjCandidate& best) const {
    CUDP_NJ_NO_FP_CONTRACT
    const int high = i > j ? i : j, low = i > j ? j : i;
    const double total =
        ((others * dij + c) - r_[static_cast<std::size_t>(low)]) - r_[static_cast<std::size_t>(high)];
    if (!best.beaten_by(total, high, low)) return false;
    best = {total, high, low};
    return true;
  }
  // Lowers the shared bound to `value` if that is lower.
  void publish(double value) {
    double now = bound_.load(std::memory_order_relaxed);
    while (value < now && !bound_.compare_exchange_weak(now, value, std::memory_order_relaxed)) {
    }
  }
  // Reads node i's list into `best`.
  void read(int i, double others, double c, double r_max, NjCandidate& best) {
    CUDP_NJ_NO_FP_CONTRACT
    const auto ui = static_cast<std::size_t>(i);
    if (head_node_[ui] < 0) return;  // nothing live
    const double ri = r_[ui];
    double limit = std::min(best.value, bound_.load(std::memory_order_relaxed));
    // An entry's o * d + c, and the least total of any pair of i at that distance (the class comment's bound).
    double x = 0;
    const auto least_total = [&](float distance) {
      x = others * static_cast<double>(distance) + c;
      const double b1 = (x - r_max) - ri, b2 = (x - ri) - r_max;
      return b1 < b2 ? b1 : b2;
    };
    // The list's first entry is its head (search() has just found it): its bound, without reading the list.
    if (least_total(head_float_[ui]) > limit) return;
    auto& list = lists_[ui];
    const std::size_t first = start_[ui];
    const int key_i = key_[ui];
    Entry* const entries = list.data();
    const std::size_t size = list.size();
    std::size_t kept = first, k = first;
    for (; k < size; ++k) {
      if (k == sorted_[ui]) extend(ui);  // beyond k only: the entries before k stay where they are
      const Entry e = entries[k];
      if (least_total(e.distance) > limit) break;
      if (key_[static_cast<std::size_t>(e.node)] >= key_i) continue;
      if (kept != k) entries[kept] = e;
      ++kept;
      // The same bound with the pair's own row sums (the smaller node's first), before the distance is read.
      const double rj = r_[static_cast<std::size_t>(e.node)];
      const double first_sum = i < e.node ? ri : rj, second_sum = i < e.node ? rj : ri;
      if (((x - first_sum) - second_sum) > limit) continue;
      if (offer(i, e.node, d_(ui, static_cast<std::size_t>(e.node)), others, c, best)) {
        publish(best.value);
        limit = std::min(best.value, limit);
      }
    }
    // The dropped entries' places go to the front, which is skipped from now on.
    if (kept < k) {
      std::move_backward(list.begin() + static_cast<std::ptrdiff_t>(first),
                         list.begin() + static_cast<std::ptrdiff_t>(kept),
                         list.begin() + static_cast<std::ptrdiff_t>(k));
      start_[ui] = k - (kept - first);
    }
  }

  std::size_t n_;
  const DistanceMatrix& d_;
  const std::vector<double>& r_;            // by node: above + below
  NjTeam& team_;
  std::vector<std::vector<Entry>> lists_;   // by node
  std::vector<std::size_t> start_;          // by node: where its list's live part starts
  std::vector<std::size_t> sorted_;         // by node: where its list's sorted part ends
  std::vector<int> key_;                    // by node: the order of its list; `dead` once joined into another
  std::vector<int> head_node_;              // by node: the node of its list's first live pair (-1: none)
  std::vector<float> head_float_;           // that pair's listed distance
  std::vector<double> head_distance_;       // and their distance, which stays while both are active
  std::size_t chunks_;                      // the active nodes' shares handed out a part
  std::vector<Entry> fresh_;                // the next joined node's list
  std::vector<NjCandidate> bests_;          // by share
  std::atomic<double> bound_{0.0};          // the lowest total any thread has found in this search
};

}  // namespace detail

// Neighbour-joining on at least 3 nodes; `d` is left as ClustalW leaves its matrix (rows of joined nodes zeroed,
// the new nodes' distances in the rows of their smaller index), which later ClustalW steps read. `d` must be
// symmetric, as DistanceMatrix::set keeps it. `threads` (0: all cores) share each join's search and updates; the
// tree and the matrix are the same on any number. `joins_done`, when given, counts the joins made (n - 3 in all), for
// a progress display.
inline NeighborJoiningTree neighbor_joining(DistanceMatrix& d, int threads = 1,
                                            std::atomic<std::size_t>* joins_done = nullptr) {
  CUDP_NJ_NO_FP_CONTRACT
  const int n = static_cast<int>(d.size());
  if (n < 3) throw std::invalid_argument("neighbor_joining: needs at least 3 nodes");
  const std::size_t un = d.size();
  const auto at = [&](int i, int j) { return d(static_cast<std::size_t>(i), static_cast<std::size_t>(j)); };
  if (threads <= 0) threads = host::usable_cores();
  detail::NjTeam team(std::max(1, std::min(threads, n / 16)));
  NeighborJoiningTree tree;
  std::vector<int> active(un);
  std::vector<double> av(un, 0.0);
  // Row sums split at the diagonal: below[j] = sum of d(i, j), i < j; above[j] = sum of d(j, i), i > j.
  std::vector<double> below(un, 0.0), above(un, 0.0), r(un, 0.0);
  std::vector<double> join(un, 0.0);
  // The active nodes' shares handed out a part.
  const std::size_t chunks = team.size() == 1 ? 1 : 4 * static_cast<std::size_t>(team.size());
  // The active nodes from the oldest (see detail::NjSearch), and by node the largest row sum of those older.
  std::vector<int> by_age(un);
  std::vector<double> older_max(un);
  for (int i = 0; i < n; ++i) {
    active[static_cast<std::size_t>(i)] = i;
    by_age[static_cast<std::size_t>(i)] = i;
    d.set(static_cast<std::size_t>(i), static_cast<std::size_t>(i), 0.0);
  }
  // below[j] along row j; above[j] down column j, which the rows below add to in turn (the same order), a share
  // of the columns a thread. A column's cost falls with its number: the shares are cut to even out the cells.
  std::vector<std::size_t> cut(chunks + 1, un);
  for (std::size_t k = 0; k < chunks; ++k)
    cut[k] = static_cast<std::size_t>(static_cast<double>(un) *
                                      (1.0 - std::sqrt(1.0 - static_cast<double>(k) / static_cast<double>(chunks))));
  auto sums = [&](std::size_t chunk) {
    CUDP_NJ_NO_FP_CONTRACT
    const std::size_t first = cut[chunk], last = std::max(first, cut[chunk + 1]);
    for (std::size_t j = first; j < last; ++j) {
      const double* row = d.row(j);
      double sum = 0.0;
      for (std::size_t i = 0; i < j; ++i) sum = sum + row[i];
      below[j] = sum;
      above[j] = 0.0;
    }
    for (std::size_t i = first + 1; i < un; ++i) {
      const double* row = d.row(i);
      for (std::size_t j = first; j < std::min(last, i); ++j) above[j] += row[j];
    }
    for (std::size_t j = first; j < last; ++j) r[j] = above[j] + below[j];
  };
  team.run(chunks, sums);
  detail::NjSearch search(d, r, team);
  double remaining = n;
  int mini = 0, minj = 0;
  std::size_t at_mini = 0;  // mini's place in `active`
  // Each node's sums change by its own two distances only, so one pass reads and writes them; the distances are
  // read from the two joined rows. Every node's writes are its own, so the active nodes are shared out.
  auto update = [&](std::size_t chunk) {
    CUDP_NJ_NO_FP_CONTRACT
    const auto ui = static_cast<std::size_t>(mini), uj = static_cast<std::size_t>(minj);
    // d(x, j) for the nodes j below x is along x's row; for those above, down x's column, a cache miss a node,
    // whose lines are asked for a few nodes ahead.
    const double* row_j = d.row(uj);
    double* row_i = d.row(ui);
    const auto cell = [&](std::size_t x, const double* row_x, std::size_t j) -> const double& {
      return j <= x ? row_x[j] : d.row(j)[x];
    };
    const std::size_t end = detail::NjTeam::share(active.size(), chunk + 1, chunks);
    for (std::size_t k = detail::NjTeam::share(active.size(), chunk, chunks); k < end; ++k) {
      const int j = active[k];
#if defined(__GNUC__) || defined(__clang__)
      if (k + 8 < end) {
        const auto ahead = static_cast<std::size_t>(active[k + 8]);
        if (ahead > ui) __builtin_prefetch(d.row(ahead) + ui, 1);
        if (ahead > uj) __builtin_prefetch(d.row(ahead) + uj, 0);
      }
#endif
      const auto uj2 = static_cast<std::size_t>(j);
      const double to_j = cell(uj, row_j, uj2);
      double to_i = 0.0;
      if (j < minj) {
        above[uj2] -= to_j;
      } else {
        below[uj2] -= to_j;
      }
      if (j < mini) {
        to_i = row_i[uj2];
        above[uj2] -= to_i;
      } else if (j > mini) {
        to_i = d.row(uj2)[ui];
        below[uj2] -= to_i;
      }
      const double value = (to_j + to_i) * 0.5;
      join[uj2] = value;
      if (j == mini) continue;
      search.fill(k < at_mini ? k : k - 1, value, j);
      d.set(ui, uj2, value);
      if (j < mini) {
        above[uj2] += value;
      } else {
        below[uj2] += value;
      }
      r[uj2] = above[uj2] + below[uj2];
    }
  };
  // After the updates, the joined node's sums (in ClustalW's order) and the next total beside its list's rebuild.
  int cycle = 0;
  double total_sum = 0.0;
  auto finish = [&](std::size_t part) {
    CUDP_NJ_NO_FP_CONTRACT
    if (part == 0 && cycle > 0) {
      const auto ui = static_cast<std::size_t>(mini), uj = static_cast<std::size_t>(minj);
      double sum = 0.0;
      auto it = active.begin();
      for (; it != active.end() && *it < mini; ++it) sum = sum + join[static_cast<std::size_t>(*it)];
      below[ui] = sum;
      if (it != active.end() && *it == mini) ++it;
      sum = 0.0;
      for (; it != active.end(); ++it) sum = sum + join[static_cast<std::size_t>(*it)];
      above[ui] = sum;
      above[uj] = below[uj] = 0.0;
      r[ui] = above[ui] + below[ui];
      by_age.erase(std::find(by_age.begin(), by_age.end(), minj));
      if (mini != minj) {
        by_age.erase(std::find(by_age.begin(), by_age.end(), mini));
        by_age.push_back(mini);
      }
    }
    if (part == 0) {
      total_sum = 0.0;
      for (const int j : active) total_sum += above[static_cast<std::size_t>(j)];
      double r_max = -HUGE_VAL;
      for (const int j : by_age) {
        older_max[static_cast<std::size_t>(j)] = r_max;
        if (r[static_cast<std::size_t>(j)] > r_max) r_max = r[static_cast<std::size_t>(j)];
      }
    }
    if (part == 1 && cycle > 0) search.joined(mini, minj, cycle);
  };
  finish(0);
  for (cycle = 1; cycle <= n - 3; ++cycle) {
    const double others = remaining - 2.0;
    const detail::NjCandidate best =
        search.search(active, others, 2.0 * total_sum, 99999.0 * 2.0 * others, older_max);
    // No total below ClustalW's start value (NaN distances): node 0 is joined with itself, as before; once node 0
    // is gone there is nothing to do but fail.
    mini = best.high < 0 ? 0 : best.low;
    minj = best.high < 0 ? 0 : best.high;
    if (best.high < 0 && active.front() != 0) {
      throw std::invalid_argument("neighbor_joining: no pair to join (distances not finite or too large)");
    }
    const auto ui = static_cast<std::size_t>(mini), uj = static_cast<std::size_t>(minj);
    double dmin = at(mini, minj);
    const double dio = (above[ui] + below[ui] - dmin) / others;
    const double djo = (above[uj] + below[uj] - dmin) / others;
    double bi = (dmin + dio - djo) * 0.5;
    double bj = dmin - bi;
    bi = bi - av[ui];
    bj = bj - av[uj];
    tree.joins.push_back({mini, minj, detail::nj_branch(bi), detail::nj_branch(bj)});
    if (dmin <= 0.0) dmin = 0.000001;  // keeps av > 0, which marks a joined node
    av[ui] = dmin * 0.5;
    remaining = remaining - 1.0;
    active.erase(std::find(active.begin(), active.end(), minj));
    // The new node's list is filled beside the updates, every other node at its place in `active`.
    // (With no pair found, node 0 joined with itself is gone from `active`, and nothing is skipped.)
    const auto found = std::lower_bound(active.begin(), active.end(), mini);
    const bool kept = found != active.end() && *found == mini;
    at_mini = kept ? static_cast<std::size_t>(found - active.begin()) : active.size();
    search.fresh(active.size() - (kept ? 1 : 0));
    team.run(chunks, update);
    team.run(2, finish);
    if (joins_done != nullptr) joins_done->fetch_add(1, std::memory_order_relaxed);
  }
  const int l1 = active[0], l2 = active[1], l3 = active[2];
  const double d12 = at(l1, l2), d13 = at(l1, l3), d23 = at(l2, l3);
  const double b1 = (d12 + d13 - d23) * 0.5;
  const double b2 = d12 - b1;
  const double b3 = d13 - b1;
  tree.last = {l1, l2, l3};
  tree.last_lengths = {detail::nj_branch(b1 - av[static_cast<std::size_t>(l1)]),
                       detail::nj_branch(b2 - av[static_cast<std::size_t>(l2)]),
                       detail::nj_branch(b3 - av[static_cast<std::size_t>(l3)])};
  // ClustalW's matrix at the end: every joined node's row and column zeroed, so only the last three remain.
  auto clear = [&](std::size_t chunk) {
    const std::size_t first = detail::NjTeam::share(un, chunk, chunks);
    const std::size_t last = detail::NjTeam::share(un, chunk + 1, chunks);
    if (first < last) std::fill(d.row(first), d.row(last - 1) + last, 0.0);
  };
  team.run(chunks, clear);
  d.set(static_cast<std::size_t>(l1), static_cast<std::size_t>(l2), d12);
  d.set(static_cast<std::size_t>(l1), static_cast<std::size_t>(l3), d13);
  d.set(static_cast<std::size_t>(l2), static_cast<std::size_t>(l3), d23);
  return tree;
}

// One UPGMA step: clusters `left` and `right` (numbered by their first input node, left < right) joined at
// `height`; the new cluster keeps the number `left`.
struct UpgmaJoin {
  int left = 0;
  int right = 0;
  double height = 0;
};

namespace detail {

// ClustalW's UPGMA state: the lower triangle with its diagonal, row k (k entries) at k(k+1)/2, removed columns
// marked -1; per row the remembered minimum and where it is.
class UpgmaRows {
 public:
  explicit UpgmaRows(const DistanceMatrix& d) : n_(static_cast<int>(d.size())) {
    cells_.assign(d.cells().begin(), d.cells().end());
    for (int k = 0; k < n_; ++k) row(k)[k] = 0.0;
    min_.assign(static_cast<std::size_t>(n_), std::numeric_limits<double>::max());
    min_at_.assign(static_cast<std::size_t>(n_), -1);
    size_.assign(static_cast<std::size_t>(n_), 1);
    alive_.assign(static_cast<std::size_t>(n_), 1);
    for (int k = 1; k < n_; ++k) find_min(k);
  }

  std::vector<UpgmaJoin> run() {
    std::vector<UpgmaJoin> joins;
    for (int left_alive = n_; left_alive > 1; --left_alive) {
      int second = -1;
      double smallest = std::numeric_limits<double>::max();
      for (int k = next_alive(0); k >= 0; k = next_alive(k)) {
        if (min_[static_cast<std::size_t>(k)] < smallest) {
          smallest = min_[static_cast<std::size_t>(k)];
          second = k;
        }
      }
      const int first = min_at_[static_cast<std::size_t>(second)];
      join(first, second);
      joins.push_back({first, second, min_[static_cast<std::size_t>(second)] / 2.0});
      alive_[static_cast<std::size_t>(second)] = 0;
      size_[static_cast<std::size_t>(first)] += size_[static_cast<std::size_t>(second)];
    }
    return joins;
  }

 private:
  double* row(int k) { return cells_.data() + static_cast<std::size_t>(k) * static_cast<std::size_t>(k + 1) / 2; }
  // The next alive node after k, or -1.
  int next_alive(int k) const {
    for (int i = k + 1; i < n_; ++i) {
      if (alive_[static_cast<std::size_t>(i)]) return i;
    }
    return -1;
  }
  double mean(double a, double b) const { return (a * size1_ + b * size2_) / (size1_ + size2_); }

  // The first smallest non-removed entry of row k (entry 0, the first node's column, is never removed).
  void find_min(int k) {
    const double* r = row(k);
    int best = 0;
    for (int j = 1; j < k; ++j) {
      if (r[j] >= 0 && r[j] < r[best]) best = j;
    }
    min_[static_cast<std::size_t>(k)] = r[best];
    min_at_[static_cast<std::size_t>(k)] = best;
  }

  void join(int first, int second) {
    size1_ = size_[static_cast<std::size_t>(first)];
    size2_ = size_[static_cast<std::size_t>(second)];
    double* r1 = row(first);
    const double* r2 = row(second);
    int walk = 0;  // ClustalW walks the second row with one pointer through the next two updates
    if (first != 0) {
      r1[0] = mean(r1[0], r2[0]);
      int best = 0;
      for (int j = 1; j < first; ++j) {
        if (r1[j] >= 0) {
          r1[j] = mean(r1[j], r2[j]);
          if (r1[j] < r1[best]) best = j;
        }
      }
      min_[static_cast<std::size_t>(first)] = r1[best];
      min_at_[static_cast<std::size_t>(first)] = best;
      walk = first;
    }
    while (r2[walk] < 0) ++walk;
    for (int k = next_alive(first); k != second; k = next_alive(k)) {
      ++walk;
      while (r2[walk] < 0) ++walk;
      double& cell = row(k)[first];
      cell = mean(cell, r2[walk]);
      const auto uk = static_cast<std::size_t>(k);
      if (cell < min_[uk]) {
        min_[uk] = cell;
        min_at_[uk] = first;
      } else if (cell > min_[uk] && min_at_[uk] == first) {
        find_min(k);
      }
    }
    constexpr double tolerance = 1e-14;  // ClustalW's guard against 32/64-bit differences in the last bits
    for (int k = next_alive(second); k >= 0; k = next_alive(k)) {
      double* r = row(k);
      const auto uk = static_cast<std::size_t>(k);
      r[first] = mean(r[first], r[second]);
      const double cell = r[first];
      if (cell < min_[uk] && (min_[uk] - cell) / min_[uk] > tolerance) {
        min_[uk] = cell;
        min_at_[uk] = first;
      } else if ((cell > min_[uk] && (cell - min_[uk]) / cell > tolerance && min_at_[uk] == first) ||
                 min_at_[uk] == second) {
        r[second] = -1;
        find_min(k);
      } else {
        r[second] = -1;
      }
    }
  }

  int n_;
  std::vector<double> cells_;
  std::vector<double> min_;
  std::vector<int> min_at_;
  std::vector<int> size_;
  std::vector<char> alive_;
  double size1_ = 1, size2_ = 1;
};

}  // namespace detail

// UPGMA on at least 2 nodes; the joins in order.
inline std::vector<UpgmaJoin> upgma(const DistanceMatrix& d) {
  if (d.size() < 2) throw std::invalid_argument("upgma: needs at least 2 nodes");
  return detail::UpgmaRows(d).run();
}

// The neighbour-joining tree as an unrooted phylo::Tree: the root is the trichotomy; every node's children come in
// the order of their smallest tip number. Tips are labelled `names` (tip i is node i).
inline Tree to_tree(const NeighborJoiningTree& nj, const std::vector<std::string>& names) {
  Tree tree;
  const int n = static_cast<int>(names.size());
  tree.nodes.resize(static_cast<std::size_t>(n));
  std::vector<int> current(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    tree.nodes[static_cast<std::size_t>(i)].label = names[static_cast<std::size_t>(i)];
    current[static_cast<std::size_t>(i)] = i;
  }
  const auto attach = [&](int parent, int child, double length) {
    TreeNode& c = tree.nodes[static_cast<std::size_t>(child)];
    c.parent = parent;
    c.length = length;
    c.has_length = true;
    tree.nodes[static_cast<std::size_t>(parent)].children.push_back(child);
  };
  for (const NeighborJoin& j : nj.joins) {
    const int node = static_cast<int>(tree.nodes.size());
    tree.nodes.emplace_back();
    attach(node, current[static_cast<std::size_t>(j.left)], j.left_length);
    attach(node, current[static_cast<std::size_t>(j.right)], j.right_length);
    current[static_cast<std::size_t>(j.left)] = node;
  }
  tree.root = static_cast<int>(tree.nodes.size());
  tree.nodes.emplace_back();
  for (int k = 0; k < 3; ++k) {
    attach(tree.root, current[static_cast<std::size_t>(nj.last[static_cast<std::size_t>(k)])],
           nj.last_lengths[static_cast<std::size_t>(k)]);
  }
  return tree;
}

// The UPGMA tree as a rooted phylo::Tree with true branch lengths (parent height minus child height); children
// in join order (the earlier cluster first).
inline Tree to_tree(const std::vector<UpgmaJoin>& joins, const std::vector<std::string>& names) {
  Tree tree;
  const int n = static_cast<int>(names.size());
  tree.nodes.resize(static_cast<std::size_t>(n));
  std::vector<int> current(static_cast<std::size_t>(n));
  std::vector<double> height(static_cast<std::size_t>(n), 0.0);
  for (int i = 0; i < n; ++i) {
    tree.nodes[static_cast<std::size_t>(i)].label = names[static_cast<std::size_t>(i)];
    current[static_cast<std::size_t>(i)] = i;
  }
  tree.root = n == 1 ? 0 : -1;
  for (const UpgmaJoin& j : joins) {
    const int node = static_cast<int>(tree.nodes.size());
    tree.nodes.emplace_back();
    for (const int cluster : {j.left, j.right}) {
      const int child = current[static_cast<std::size_t>(cluster)];
      TreeNode& c = tree.nodes[static_cast<std::size_t>(child)];
      c.parent = node;
      c.length = j.height - height[static_cast<std::size_t>(cluster)];
      c.has_length = true;
      tree.nodes[static_cast<std::size_t>(node)].children.push_back(child);
    }
    current[static_cast<std::size_t>(j.left)] = node;
    height[static_cast<std::size_t>(j.left)] = j.height;
    tree.root = node;
  }
  return tree;
}

}  // namespace cudp::phylo

#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#pragma GCC pop_options
#endif
