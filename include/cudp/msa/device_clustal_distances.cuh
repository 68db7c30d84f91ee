#pragma once
// Stage 1 of ClustalW 2.1 (its default, full pairwise distances) on the GPU: the same distances as
// clustal_distances on the host, bit for bit, for all N(N-1)/2 pairs of a set.
//
//   cudp::msa::DeviceClustalDistances gpu(seqs.residues);
//   phylo::DistanceMatrix d = gpu.distances(cudp::msa::FullPairwiseSettings::protein());
//
// Work unit: one pair per thread, running clustal_full_pairwise.hpp's ClustalFullPairwiseCore itself, so that every
// comparison and tie is the host's. A thread's four scratch rows live in global memory interleaved across its warp,
// column by column ([column][lane]), so that the lanes' accesses to column j coalesce while they sweep rows of
// similar length; each pass computes DeviceClustalLimits::strip_rows rows at a time in registers, so the scratch is
// read and written once a strip; the score table is in shared memory, its rows padded against bank conflicts.
// A pair's three steps take very different times: the local pass covers all n x m cells, the backward pass runs
// from the end cell back to where the local alignment starts, and Myers-Miller takes about twice the box's area, which
// for related sequences is most of n x m and for unrelated ones a few cells. A warp runs as long as its slowest
// lane, so one kernel running all three per thread leaves most lanes idle. Each step is therefore a kernel of its
// own, whose threads take the launch's pairs sorted (CUB's radix sort, largest first) by that step's loop trip
// counts, so that a warp's lanes loop alike: outer loops over strips of rows, inner ones over columns. The local pass
// sorts by n's strips, then m (the orientation by input order makes n and m differ between neighbouring pairs); the
// backward pass by end1's strips (it stops at the start row, for related sequences near the first), then end2;
// Myers-Miller by the box's rows in steps of two strips (its first split), then its columns, and the core takes its
// first levels of splits breadth first so that the lanes' big boxes come together. Each kernel compiles only its
// step, with fewer registers than the three together. The end cells and boxes wait in device memory between the
// kernels: 44 bytes a pair with the sort's arrays, outside the scratch budget.
// The device counts identities only: the percent and the distance (float steps, then double) are finished on the
// host, as are the gap costs (the protein opening takes a log, whose last bit the device's log need not share).
//
// Pairs are numbered as align::pair_at numbers them, over the sequences sorted by length, longest first: pair p's
// longer sequence is its row i, so the pairs from p on need rows of at most length(i) + 1 ints. Launches take
// consecutive pairs, each as many as its scratch budget allows at its own row width, through the sorts and kernels.
// Sequences longer than DeviceClustalLimits::max_length make the first rows of that numbering: their pairs are
// aligned on the host's threads while the GPU works on the others.
// -QUICKTREE's k-tuple distances stay on the host (device_clustal_distances hands them to clustal_distances).
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "../align/all_pairs.hpp"
#include "../config.hpp"
#include "../engine/cuda_check.cuh"
#include "../engine/device_buffer.cuh"
#include "../engine/device_stream.cuh"
#include "../host/parallel_for.hpp"
#include "../phylo/distance_trees.hpp"
#include "clustal_distances.hpp"
#include "clustal_full_pairwise.hpp"

namespace cudp::msa {

struct DeviceClustalLimits {
  // Pairs with a longer sequence go to the host: one thread's scratch is 16 bytes a residue of the longest
  // sequence of its launch, so a few long sequences would leave few threads per launch.
  int max_length = 20000;
  // Scratch rows of one launch (bounded further by half the free device memory).
  std::size_t scratch_bytes = std::size_t{2} << 30;
  // Rows a pass keeps in registers: 1, 2, 4, 8 or 16 (more rows, fewer scratch accesses but more registers a
  // thread). On an H100, 500 proteins of 100-500 residues, one run: 16 rows 119 Gcells/s, 8 rows 88
  // (bench/RESULTS.md).
  int strip_rows = 16;
  int host_threads = 0;  // for the host's pairs (0: all usable cores)
};

namespace detail {

constexpr int kClustalPairsBlock = 128;
constexpr int kClustalLanes = 32;                // scratch interleaving: one warp
constexpr std::int64_t kClustalMaxLaunch = 1 << 22;  // threads a launch, far above what the scratch admits in practice
// Shared table rows padded by one int, so that lanes reading one column y of different rows x hit different banks
// (with 32 ints a row, all such reads of a warp land in bank y): lanes whose pairs share a sequence b read so.
constexpr int kClustalTableRow = clustal_table_size + 1;

struct ClustalSharedScores {
  const int* table;  // clustal_table_size rows of kClustalTableRow ints
  CUDP_HD int operator()(int x, int y) const { return table[x * kClustalTableRow + y]; }
};

// One launch's pairs through the three kernels. Thread t of a kernel takes pair order[t] (the launch's pair
// index, sorted by that kernel's key) and writes the next kernel's key and pair at t, to be sorted in turn.
struct ClustalPairsLaunch {
  const std::uint8_t* residues;  // the sorted sequences end to end
  const std::int64_t* offsets;
  const int* lengths;
  const int* original;  // input index of each sorted sequence
  const int* opens;     // gap opening of a pair whose shorter sequence is this one
  const int* table;
  int extend;
  int sequences;
  std::int64_t first_pair;  // of this launch
  std::int64_t pairs;
  int row_words;  // ints per scratch row: the launch's longest length + 1
  int key_shift;  // sort keys' right shift, to fit 32 bits
  int* scratch;
  const int* order;     // by thread
  std::uint32_t* keys;  // by thread
  int* next;            // by thread
  ClustalEnd* ends;     // by pair
  ClustalBox* boxes;    // by pair
  int* identities;      // by pair
};

// (i, j) of pair p, as align::pair_at: the closed form, then corrected for rounding.
CUDP_HD void clustal_pair_at(std::int64_t p, int n, int& i, int& j) {
  const auto row_start = [n](std::int64_t r) { return r * (2 * static_cast<std::int64_t>(n) - r - 1) / 2; };
  const double m = 2.0 * n - 1;
  auto r = static_cast<std::int64_t>((m - sqrt(m * m - 8.0 * static_cast<double>(p))) / 2);
  while (r > 0 && row_start(r) > p) --r;
  while (row_start(r + 1) <= p) ++r;
  i = static_cast<int>(r);
  j = static_cast<int>(r + 1 + (p - row_start(r)));
}

// Pair q of a launch as the host aligns it: the earlier input sequence is a (the tie rules are not symmetric).
struct ClustalPair {
  const std::uint8_t* a;
  const std::uint8_t* b;
  int n, m;
  PairGapCosts costs;
  CUDP_HD bool empty() const { return n == 0 || m == 0; }  // identities 0: the host sets the distance
};

CUDP_HD ClustalPair clustal_pair(const ClustalPairsLaunch& l, std::int64_t q) {
  int i = 0, j = 0;
  clustal_pair_at(l.first_pair + q, l.sequences, i, j);
  if (l.original[i] > l.original[j]) {
    const int k = i;
    i = j;
    j = k;
  }
  const int n = l.lengths[i], m = l.lengths[j];
  return ClustalPair{l.residues + l.offsets[i], l.residues + l.offsets[j], n, m,
                     PairGapCosts{l.opens[n <= m ? i : j], l.extend}};
}

template <int Strip>
using ClustalDeviceCore = ClustalFullPairwiseCore<std::uint8_t, ClustalSharedScores, kClustalLanes, Strip>;

// The core of pair `p` on thread t's scratch rows.
template <int Strip>
CUDP_HD ClustalDeviceCore<Strip> clustal_core(const ClustalPairsLaunch& l, const ClustalPair& p, const int* table,
                                              std::int64_t t) {
  const std::int64_t row = static_cast<std::int64_t>(l.row_words) * kClustalLanes;
  int* base = l.scratch + (t / kClustalLanes) * 4 * row + t % kClustalLanes;
  return ClustalDeviceCore<Strip>(p.a, p.b, ClustalSharedScores{table}, p.costs, base, base + row, base + 2 * row,
                                  base + 3 * row);
}

// A sort key: a loop's outer trip count (strips, or rows in steps of strips) first, then its inner one (columns,
// below `width`): below width^2, shifted right by `shift` to fit 32 bits.
CUDP_HD std::uint32_t clustal_key(int outer, int inner, int width, int shift) {
  const auto key = static_cast<std::uint64_t>(outer) * static_cast<std::uint64_t>(width) +
                   static_cast<std::uint64_t>(inner);
  return static_cast<std::uint32_t>(key >> shift);
}

CUDP_DEVICE void clustal_load_table(const int* from, int* table) {
  for (int k = static_cast<int>(threadIdx.x); k < clustal_table_size * clustal_table_size; k += kClustalPairsBlock) {
    table[k / clustal_table_size * kClustalTableRow + k % clustal_table_size] = from[k];
  }
  __syncthreads();
}

// Thread t's part of each kernel (host and device, so that a host test can run a launch thread by thread).
//
// Keys of the local pass: strips of the pair's rows n, each over its columns m.
template <int Strip>
CUDP_HD void clustal_shape_step(const ClustalPairsLaunch& l, std::int64_t t) {
  const ClustalPair p = clustal_pair(l, t);
  l.keys[t] = clustal_key((p.n + Strip - 1) / Strip, p.m, l.row_words, l.key_shift);
  l.next[t] = static_cast<int>(t);
}

// The local pass; keys of the backward pass, whose strips run from end1 back to the start row (for related
// sequences near the first: end1 predicts their number better than the best score does), each over end2 columns.
template <int Strip>
CUDP_HD void clustal_end_step(const ClustalPairsLaunch& l, const int* table, std::int64_t t) {
  const int q = l.order[t];
  const ClustalPair p = clustal_pair(l, q);
  const ClustalEnd end = p.empty() ? ClustalEnd{} : clustal_core<Strip>(l, p, table, t).end_cell(p.n, p.m);
  l.ends[q] = end;
  l.keys[t] = clustal_key((end.end1 + Strip - 1) / Strip, end.end2, l.row_words, l.key_shift);
  l.next[t] = q;
}

// The backward pass; keys of Myers-Miller, whose first split runs strips over half the box's rows each way, each
// over its columns (about half its work, and the row splits below follow from the rows).
template <int Strip>
CUDP_HD void clustal_start_step(const ClustalPairsLaunch& l, const int* table, std::int64_t t) {
  const int q = l.order[t];
  const ClustalPair p = clustal_pair(l, q);
  const ClustalBox box =
      p.empty() ? ClustalBox{1, 1, 0, 0} : clustal_core<Strip>(l, p, table, t).box_from_end(l.ends[q]);
  l.boxes[q] = box;
  const int rows = box.end1 - box.start1 + 1, cols = box.end2 - box.start2 + 1;
  l.keys[t] = clustal_key((rows + 2 * Strip - 1) / (2 * Strip), cols, l.row_words, l.key_shift);
  l.next[t] = q;
}

// Myers-Miller on the box: the pair's identities.
template <int Strip>
CUDP_HD void clustal_box_step(const ClustalPairsLaunch& l, const int* table, std::int64_t t) {
  const int q = l.order[t];
  const ClustalPair p = clustal_pair(l, q);
  l.identities[q] = p.empty() ? 0 : clustal_core<Strip>(l, p, table, t).box_identities(l.boxes[q]);
}

template <int Strip>
__global__ void __launch_bounds__(kClustalPairsBlock) clustal_shape_kernel(ClustalPairsLaunch l) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kClustalPairsBlock + threadIdx.x;
  if (t < l.pairs) clustal_shape_step<Strip>(l, t);
}

template <int Strip>
__global__ void __launch_bounds__(kClustalPairsBlock) clustal_end_kernel(ClustalPairsLaunch l) {
  __shared__ int table[clustal_table_size * kClustalTableRow];
  clustal_load_table(l.table, table);
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kClustalPairsBlock + threadIdx.x;
  if (t < l.pairs) clustal_end_step<Strip>(l, table, t);
}

template <int Strip>
__global__ void __launch_bounds__(kClustalPairsBlock) clustal_start_kernel(ClustalPairsLaunch l) {
  __shared__ int table[clustal_table_size * kClustalTableRow];
  clustal_load_table(l.table, table);
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kClustalPairsBlock + threadIdx.x;
  if (t < l.pairs) clustal_start_step<Strip>(l, table, t);
}

template <int Strip>
__global__ void __launch_bounds__(kClustalPairsBlock) clustal_box_kernel(ClustalPairsLaunch l) {
  __shared__ int table[clustal_table_size * kClustalTableRow];
  clustal_load_table(l.table, table);
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kClustalPairsBlock + threadIdx.x;
  if (t < l.pairs) clustal_box_step<Strip>(l, table, t);
}

}  // namespace detail

// The sequences on the device, once; distances() for any settings. One call at a time per object.
class DeviceClustalDistances {
 public:
  // `sequences`: residue codes as clustal_encode makes them (gaps included), each below clustal_table_size.
  explicit DeviceClustalDistances(const std::vector<std::vector<int>>& sequences, DeviceClustalLimits limits = {})
      : sequences_(sequences), limits_(limits) {
    if (limits_.max_length < 1) throw std::invalid_argument("DeviceClustalDistances: max_length must be positive");
    if (kernels(limits_.strip_rows).shapes == nullptr)
      throw std::invalid_argument("DeviceClustalDistances: strip_rows must be 1, 2, 4, 8 or 16");
    const std::size_t n = sequences_.size();
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](int x, int y) { return sequences_[x].size() > sequences_[y].size(); });
    std::vector<std::uint8_t> residues;
    std::vector<std::int64_t> offsets(n);
    lengths_.resize(n);
    for (std::size_t s = 0; s < n; ++s) {
      const auto& seq = sequences_[static_cast<std::size_t>(order_[s])];
      if (seq.size() > static_cast<std::size_t>(INT32_MAX / 2)) {
        throw std::invalid_argument("DeviceClustalDistances: sequence " + std::to_string(order_[s]) + " too long");
      }
      offsets[s] = static_cast<std::int64_t>(residues.size());
      lengths_[s] = static_cast<int>(seq.size());
      if (lengths_[s] > limits_.max_length) ++host_rows_;
      for (const int c : seq) {
        if (c < 0 || c >= clustal_table_size) {
          throw std::invalid_argument("DeviceClustalDistances: residue code " + std::to_string(c) +
                                      " out of range in sequence " + std::to_string(order_[s]));
        }
        residues.push_back(static_cast<std::uint8_t>(c));
      }
    }
    residues_.upload(residues, stream_.get());
    offsets_.upload(offsets, stream_.get());
    lengths_device_.upload(lengths_, stream_.get());
    original_.upload(order_, stream_.get());
    CUDP_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }

  // Pairs whose longer sequence passes max_length, aligned on the host.
  std::size_t host_pairs() const { return row_start(host_rows_); }
  std::size_t device_pairs() const { return align::pair_count(sequences_.size()) - host_pairs(); }

  // The distance matrix, equal to clustal_distances(sequences, {quick = false, settings}). `pairs_done`, when
  // given, counts the pairs finished (a launch's when the GPU finishes it), for a progress display.
  phylo::DistanceMatrix distances(const FullPairwiseSettings& settings,
                                  std::atomic<std::size_t>* pairs_done = nullptr) {
    const std::size_t n = sequences_.size();
    phylo::DistanceMatrix d(n);
    if (n < 2) return d;
    const PairwiseScoring scoring = settings.scoring();
    std::vector<int> table(clustal_table_size * clustal_table_size);
    for (std::size_t x = 0; x < clustal_table_size; ++x) {
      for (std::size_t y = 0; y < clustal_table_size; ++y) table[x * clustal_table_size + y] = scoring.table[x][y];
    }
    std::vector<int> opens(n);
    for (std::size_t s = 0; s < n; ++s) opens[s] = pairwise_gap_costs(settings, scoring, lengths_[s], lengths_[s]).open;
    const int extend = pairwise_gap_costs(settings, scoring, 1, 1).extend;
    table_.upload(table, stream_.get());
    opens_.upload(opens, stream_.get());

    const std::size_t first = host_pairs(), total = align::pair_count(n);
    identities_.reserve(total - first);
    enqueue(first, total, extend, pairs_done);
    // The long sequences' pairs on the host meanwhile, as clustal_distances aligns them.
    host::parallel_for(first, limits_.host_threads, [] { return FullPairwiseAligner(); },
                       [&](FullPairwiseAligner& aligner, std::size_t p) {
                         const auto [i, j] = align::pair_at(p, n);
                         const auto [a, b] = input_pair(i, j);
                         const auto& x = sequences_[a];
                         const auto& y = sequences_[b];
                         d.set(a, b, aligner.distance(x.data(), static_cast<int>(x.size()), y.data(),
                                                      static_cast<int>(y.size()), settings, scoring));
                         if (pairs_done != nullptr) pairs_done->fetch_add(1, std::memory_order_relaxed);
                       });
    std::vector<int> residues(n), lengths(n);
    for (std::size_t s = 0; s < n; ++s) {
      const auto& seq = sequences_[s];
      lengths[s] = static_cast<int>(seq.size());
      residues[s] = residue_count(seq.data(), lengths[s]);
    }
    // The identities come back a slice at a time (4 bytes a pair would otherwise sit beside the matrix's 8).
    constexpr std::size_t slice = std::size_t{1} << 26;
    std::vector<int> counts(std::min(slice, total - first));
    for (std::size_t from = first; from < total; from += slice) {
      const std::size_t to = std::min(total, from + slice);
      CUDP_CUDA_CHECK(cudaMemcpyAsync(counts.data(), identities_.get() + (from - first), (to - from) * sizeof(int),
                                      cudaMemcpyDeviceToHost, stream_.get()));
      CUDP_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
      set_full_distances(d, order_, lengths, residues, counts.data(), from, to, limits_.host_threads);
    }
    return d;
  }

 private:
  using Kernel = void (*)(detail::ClustalPairsLaunch);
  struct Kernels {
    Kernel shapes, ends, starts, boxes;
  };
  template <int Strip>
  static Kernels strip_kernels() {
    return {&detail::clustal_shape_kernel<Strip>, &detail::clustal_end_kernel<Strip>,
            &detail::clustal_start_kernel<Strip>, &detail::clustal_box_kernel<Strip>};
  }
  static Kernels kernels(int strip_rows) {
    switch (strip_rows) {
      case 1: return strip_kernels<1>();
      case 2: return strip_kernels<2>();
      case 4: return strip_kernels<4>();
      case 8: return strip_kernels<8>();
      case 16: return strip_kernels<16>();
      default: return {nullptr, nullptr, nullptr, nullptr};
    }
  }

  std::size_t row_start(std::size_t r) const { return r * (2 * sequences_.size() - r - 1) / 2; }

  // The input indices of sorted sequences i and j, the earlier first.
  std::pair<std::size_t, std::size_t> input_pair(std::size_t i, std::size_t j) const {
    const auto a = static_cast<std::size_t>(order_[i]), b = static_cast<std::size_t>(order_[j]);
    return a < b ? std::pair{a, b} : std::pair{b, a};
  }

  // A launch's pairs, added to the caller's counter from the stream once the GPU is past the launch.
  struct LaunchDone {
    std::atomic<std::size_t>* counter;
    std::size_t pairs;
    static void CUDART_CB add(void* self) {
      const auto* done = static_cast<const LaunchDone*>(self);
      done->counter->fetch_add(done->pairs, std::memory_order_relaxed);
    }
  };

  // Launches for pairs [first, total), each as many pairs as its scratch budget holds at its own row width.
  void enqueue(std::size_t first, std::size_t total, int extend, std::atomic<std::size_t>* pairs_done) {
    std::size_t free_bytes = 0, device_bytes = 0;
    CUDP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &device_bytes));
    const std::size_t budget = std::min(limits_.scratch_bytes, free_bytes / 2);
    struct Launch {
      std::size_t first, pairs;
      int row_words;
    };
    std::vector<Launch> launches;
    std::size_t most = 0;
    const int lanes = detail::kClustalLanes;
    for (std::size_t p = first; p < total;) {
      const std::size_t i = align::pair_at(p, sequences_.size()).first;
      const int row_words = lengths_[i] + 1;
      const std::size_t warp_bytes = sizeof(int) * 4 * static_cast<std::size_t>(row_words) * lanes;
      const std::size_t warps = budget / warp_bytes;
      if (warps == 0) {
        throw std::runtime_error("DeviceClustalDistances: a warp's scratch for length " +
                                 std::to_string(lengths_[i]) + " passes the scratch budget; lower max_length");
      }
      const std::size_t pairs =
          std::min({total - p, warps * lanes, static_cast<std::size_t>(detail::kClustalMaxLaunch)});
      launches.push_back({p, pairs, row_words});
      most = std::max(most, (pairs + lanes - 1) / lanes * warp_bytes / sizeof(int));
      p += pairs;
    }
    scratch_.reserve(most);
    std::size_t most_pairs = 0;
    for (const Launch& launch : launches) most_pairs = std::max(most_pairs, launch.pairs);
    keys_.reserve(most_pairs);
    sorted_keys_.reserve(most_pairs);
    next_.reserve(most_pairs);
    order_device_.reserve(most_pairs);
    ends_.reserve(most_pairs);
    boxes_.reserve(most_pairs);
    sort_temp_.reserve(sort_bytes(static_cast<int>(most_pairs), 32), stream_.get());
    launches_done_.clear();
    launches_done_.reserve(launches.size());  // the stream's callbacks point into it: no reallocation
    const Kernels run = kernels(limits_.strip_rows);
    for (const Launch& launch : launches) {
      // Sort keys below the row width squared, cut to 32 bits.
      const auto width = static_cast<std::uint64_t>(launch.row_words);
      int bits = 1;
      while ((std::uint64_t{1} << bits) < width * width) ++bits;
      const int shift = std::max(0, bits - 32);
      detail::ClustalPairsLaunch l{residues_.get(),
                                   offsets_.get(),
                                   lengths_device_.get(),
                                   original_.get(),
                                   opens_.get(),
                                   table_.get(),
                                   extend,
                                   static_cast<int>(sequences_.size()),
                                   static_cast<std::int64_t>(launch.first),
                                   static_cast<std::int64_t>(launch.pairs),
                                   launch.row_words,
                                   shift,
                                   scratch_.get(),
                                   order_device_.get(),
                                   keys_.get(),
                                   next_.get(),
                                   ends_.get(),
                                   boxes_.get(),
                                   identities_.get() + (launch.first - first)};
      const auto blocks = static_cast<unsigned>((launch.pairs + detail::kClustalPairsBlock - 1) /
                                                detail::kClustalPairsBlock);
      const auto sort_keys = [&] { sort_pairs(static_cast<int>(launch.pairs), bits - shift); };
      for (const Kernel kernel : {run.shapes, run.ends, run.starts, run.boxes}) {
        if (kernel != run.shapes) sort_keys();
        kernel<<<blocks, detail::kClustalPairsBlock, 0, stream_.get()>>>(l);
        CUDP_CUDA_CHECK(cudaGetLastError());
      }
      if (pairs_done != nullptr) {
        launches_done_.push_back({pairs_done, launch.pairs});
        CUDP_CUDA_CHECK(cudaLaunchHostFunc(stream_.get(), &LaunchDone::add, &launches_done_.back()));
      }
    }
  }

  std::size_t sort_bytes(int pairs, int bits) const {
    std::size_t bytes = 0;
    CUDP_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, keys_.get(), sorted_keys_.get(),
                                                              next_.get(), order_device_.get(), pairs, 0, bits,
                                                              stream_.get()));
    return bytes;
  }

  // The pairs of keys_ and next_ into order_device_, largest keys first (radix sort: equal keys keep their order).
  void sort_pairs(int pairs, int bits) {
    std::size_t bytes = sort_bytes(pairs, bits);
    sort_temp_.reserve(bytes, stream_.get());  // as a rule already there: enqueue reserves the most
    CUDP_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(sort_temp_.get(), bytes, keys_.get(),
                                                              sorted_keys_.get(), next_.get(), order_device_.get(),
                                                              pairs, 0, bits, stream_.get()));
  }

  std::vector<std::vector<int>> sequences_;
  DeviceClustalLimits limits_;
  std::vector<int> order_;    // input index of each sorted sequence, longest first
  std::vector<int> lengths_;  // sorted
  std::size_t host_rows_ = 0;  // sorted sequences past max_length
  engine::DeviceStream stream_;
  engine::DeviceBuffer<std::uint8_t> residues_;
  engine::DeviceBuffer<std::int64_t> offsets_;
  engine::DeviceBuffer<int> lengths_device_, original_, opens_, table_, scratch_, identities_;
  // A launch's sort: keys and pairs as a kernel writes them, then sorted (sorted_keys_ unread).
  engine::DeviceBuffer<std::uint32_t> keys_, sorted_keys_;
  engine::DeviceBuffer<int> next_, order_device_;
  engine::DeviceBuffer<unsigned char> sort_temp_;
  engine::DeviceBuffer<ClustalEnd> ends_;
  engine::DeviceBuffer<ClustalBox> boxes_;
  std::vector<LaunchDone> launches_done_;
};

// clustal_distances with the full pairwise alignments on the GPU (a caller with several sets, or several settings,
// keeps one DeviceClustalDistances instead).
inline phylo::DistanceMatrix device_clustal_distances(const std::vector<std::vector<int>>& sequences,
                                                      const PairwiseDistanceSettings& settings,
                                                      DeviceClustalLimits limits = {},
                                                      std::atomic<std::size_t>* pairs_done = nullptr) {
  if (settings.quick) return clustal_distances(sequences, settings, limits.host_threads, pairs_done);
  return DeviceClustalDistances(sequences, limits).distances(settings.full, pairs_done);
}

}  // namespace cudp::msa
