#pragma once
// The host pruning tier's loops in CPU vector lanes, for policies whose fold over an edge is the dot product and
// whose join is the product (Policy::sum_of_products: Felsenstein's pruning). A parent's vector is made for all its
// states at once from the transposed matrix of each child's edge: sum_j P(s, j) L(j) for every s is the sum over j
// of column j times L(j), a multiply and an add of whole vectors per j. Every value so made goes through the same
// roundings as the scalar prune_pattern's (products added in the order of j, no fused multiply-add: a fused one
// rounds once where BEAGLE and the scalar tier round twice, and MrBayes' trace would drift from BEAGLE's), so the
// two paths agree to the bit, whatever the thread count.
//
// Lanes are GCC/Clang vector extensions, compiled for the build's own instruction set and, on x86-64, once more for
// AVX2 without FMA, which is taken when the processor has it. A compiler without the extensions, and CUDA
// translation units, use the scalar tier.
#include <cstddef>
#include <cstdint>

#include "pruning_buffers.hpp"

#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define CUDP_HAS_PRUNING_LANES 1
#if defined(__x86_64__)
#define CUDP_HAS_PRUNING_LANES_AVX2 1
#endif

namespace cudp::tiers::pruning_lanes {

// Values of Real per vector for States states in registers of Bytes bytes: narrower vectors where the states would
// fill fewer than half the lanes (4 states in single precision take 4 lanes, not 8 with 4 idle).
template <class Real, int States, int Bytes>
constexpr int lanes_for() {
  int lanes = Bytes / static_cast<int>(sizeof(Real));
  while (lanes > 2 && lanes / 2 >= States) lanes /= 2;
  return lanes;
}

// Lanes values of Real in a vector, and the same vector at any address of a Real (as the intrinsics' __m256d_u):
// spelled out per width, since clang keeps a vector's natural alignment on a typedef that depends on a template
// parameter, and an aligned load of an unaligned address faults.
template <class Real, int Lanes>
struct Vector;
template <>
struct Vector<double, 2> {
  typedef double type __attribute__((vector_size(16)));
  typedef double unaligned __attribute__((vector_size(16), aligned(alignof(double))));
};
template <>
struct Vector<double, 4> {
  typedef double type __attribute__((vector_size(32)));
  typedef double unaligned __attribute__((vector_size(32), aligned(alignof(double))));
};
template <>
struct Vector<float, 2> {
  typedef float type __attribute__((vector_size(8)));
  typedef float unaligned __attribute__((vector_size(8), aligned(alignof(float))));
};
template <>
struct Vector<float, 4> {
  typedef float type __attribute__((vector_size(16)));
  typedef float unaligned __attribute__((vector_size(16), aligned(alignof(float))));
};
template <>
struct Vector<float, 8> {
  typedef float type __attribute__((vector_size(32)));
  typedef float unaligned __attribute__((vector_size(32), aligned(alignof(float))));
};

// Patterns per block of the lanes tier: at least 64, and at least 8 KiB of one category's values, so that a block's
// stretch of each buffer is long enough for the processor's prefetchers to follow (4 states in double: 256).
template <class Real, int States>
constexpr int block_patterns() {
  const int filling = 8192 / (States * static_cast<int>(sizeof(Real)));
  return filling > 64 ? (filling + 63) / 64 * 64 : 64;
}

// An edge's likelihood terms (edge_pattern's arguments): `parent` holds partials, `child` partials or states.
template <class Real>
struct EdgeSum {
  int parent, child, matrix;
  const Real* frequencies;
  const Real* weights;
};

// Everything below is inlined into the per-instruction-set entry points, so that its vectors are compiled for the
// entry point's instruction set and never cross a call.
#define CUDP_PRUNING_LANES_INLINE inline __attribute__((always_inline))

template <class Policy, class Real, int Bytes, int MaxPatterns>
struct BlockKernel {
  static constexpr int S = Policy::states;
  static constexpr int W = lanes_for<Real, S, Bytes>();
  static constexpr int vectors = (S + W - 1) / W;
  static constexpr int padded = vectors * W;  // a column's length: S values, then zeros
  // Accumulators kept in registers at once by the dot product (16 vector registers on x86-64 without AVX-512).
  static constexpr int tile = 8;
  using V = typename Vector<Real, W>::type;

  // Unaligned loads and stores (a vector of Real may alias Real). Vectors pass by reference, never by value: GCC
  // warns that a function passing a 32-byte vector by value changes its ABI with the instruction set, though none
  // of these is ever called.
  using Unaligned = typename Vector<Real, W>::unaligned;
  static CUDP_PRUNING_LANES_INLINE void at(const Real* p, V& v) { v = *reinterpret_cast<const Unaligned*>(p); }
  static CUDP_PRUNING_LANES_INLINE void put(Real* p, const V& v) { *reinterpret_cast<Unaligned*>(p) = v; }

  // Column j of matrix row-major `m`, padded with zeros, at columns + j * padded.
  static CUDP_PRUNING_LANES_INLINE void transpose(const Real* m, Real* columns) {
    for (int j = 0; j < S; ++j) {
      Real* column = columns + j * padded;
      for (int s = 0; s < S; ++s) column[s] = m[s * S + j];
      for (int s = S; s < padded; ++s) column[s] = Real(0);
    }
  }

  // out[s] = sum_j columns[j][s] v[j], in the order of j.
  static CUDP_PRUNING_LANES_INLINE void through_columns(const Real* columns, const Real* v, V* out) {
    for (int first = 0; first < vectors; first += tile) {
      constexpr int most = tile < vectors ? tile : vectors;
      const int count = vectors - first < most ? vectors - first : most;
      V sum[most];
      {
        const Real x = v[0];
        for (int i = 0; i < count; ++i) {
          at(columns + (first + i) * W, sum[i]);
          sum[i] *= x;
        }
      }
      for (int j = 1; j < S; ++j) {
        const Real x = v[j];
        const Real* column_j = columns + j * padded + first * W;
        for (int i = 0; i < count; ++i) {
          V column;
          at(column_j + i * W, column);
          sum[i] += column * x;
        }
      }
      for (int i = 0; i < count; ++i) out[first + i] = sum[i];
    }
  }

  // The last vector of S values when W does not divide S, through a staging array padded with zeros.
  static CUDP_PRUNING_LANES_INLINE void load(const Real* from, V* out) {
    for (int i = 0; i < S / W; ++i) at(from + i * W, out[i]);
    if constexpr (S % W != 0) {
      Real staged[W] = {};
      for (int s = 0; s < S % W; ++s) staged[s] = from[S / W * W + s];
      at(staged, out[S / W]);
    }
  }

  static CUDP_PRUNING_LANES_INLINE void store(const V* from, Real* to) {
    for (int i = 0; i < S / W; ++i) put(to + i * W, from[i]);
    if constexpr (S % W != 0)
      for (int s = 0; s < S % W; ++s) to[S / W * W + s] = from[S / W][s];
  }

  // What a child of an operation is, for one category: its kind, where its values for pattern 0 are, and its edge's
  // matrix transposed, with a row S of ones after the S columns (a missing datum seen through any matrix).
  enum class Kind { absent, as_is, tip, partials, any };
  struct Child {
    Kind kind = Kind::absent;
    const Real* partials = nullptr;
    const std::uint8_t* codes = nullptr;
    const Real* columns = nullptr;
  };

  template <Kind K>
  static CUDP_PRUNING_LANES_INLINE void through(const PruningBuffers<Real>& b, const Child& child, int p, V* out) {
    if constexpr (K == Kind::any) {
      switch (child.kind) {
        case Kind::as_is: return through<Kind::as_is>(b, child, p, out);
        case Kind::tip: return through<Kind::tip>(b, child, p, out);
        default: return through<Kind::partials>(b, child, p, out);
      }
    } else if constexpr (K == Kind::as_is) {
      load(child.partials + static_cast<std::ptrdiff_t>(p) * S, out);
    } else if constexpr (K == Kind::tip) {
      const int code = child.codes[p];
      if (code <= S) {
        for (int i = 0; i < vectors; ++i) at(child.columns + code * padded + i * W, out[i]);
      } else {
        through_columns(child.columns, b.code_set(code), out);
      }
    } else {
      through_columns(child.columns, child.partials + static_cast<std::ptrdiff_t>(p) * S, out);
    }
  }

  // Patterns [first, last) of one category: the destination's values, and the largest so far per pattern. Children
  // of kind `any` have theirs looked up per pattern; absent ones come last.
  template <Kind First, Kind Second>
  static CUDP_PRUNING_LANES_INLINE void run_patterns(const PruningBuffers<Real>& b, const Child* children,
                                                     const Real* unit, Real* destination, int first, int last,
                                                     V* largest) {
    for (int p = first; p < last; ++p) {
      V out[vectors];
      if (children[0].kind == Kind::absent) {
        for (int i = 0; i < vectors; ++i) at(unit + i * W, out[i]);
      } else {
        // The scalar tier's join(unit(), x) is x exactly, so the first child is taken as it is.
        through<First>(b, children[0], p, out);
      }
      if (children[1].kind != Kind::absent) {
        V second[vectors];
        through<Second>(b, children[1], p, second);
        for (int i = 0; i < vectors; ++i) out[i] *= second[i];
      }
      store(out, destination + static_cast<std::ptrdiff_t>(p) * S);
      V& most = largest[p - first];
      for (int i = 0; i < vectors; ++i) most = out[i] > most ? out[i] : most;
    }
  }

  // One operation on patterns [first, last), every category; then the destination's exponents and rescaling, as
  // prune_pattern settles them. The padding lanes hold 0 (or NaN from an infinite child), which the largest value
  // (a comparison that passes NaN over) never takes.
  static CUDP_PRUNING_LANES_INLINE void run(const PruningBuffers<Real>& b, const PruningOperation& op, int first,
                                            int last) {
    alignas(64) Real columns[2][(S + 1) * padded];
    alignas(64) Real unit[padded] = {};
    for (int s = 0; s < S; ++s) unit[s] = Policy::unit();
    V largest[MaxPatterns];
    for (int p = 0; p < last - first; ++p) largest[p] = V{};

    Child children[2];
    int present = 0;
    for (int k = 0; k < 2; ++k) {
      const int child = op.child[k];
      if (child < 0) continue;
      Child& c = children[present++];
      c.kind = op.matrix[k] < 0 ? Kind::as_is : b.is_tip(child) ? Kind::tip : Kind::partials;
      if (c.kind == Kind::tip) c.codes = b.tip_codes + static_cast<std::ptrdiff_t>(child) * b.patterns;
      c.columns = columns[k];
      for (int s = 0; s < padded; ++s) columns[k][S * padded + s] = unit[s];
    }
    const Kind first_kind = children[0].kind, second_kind = children[1].kind;
    for (int c = 0; c < b.categories; ++c) {
      for (int k = 0, i = 0; k < 2; ++k) {
        if (op.child[k] < 0) continue;
        Child& child = children[i++];
        if (child.kind != Kind::tip) child.partials = b.partial(op.child[k], c, 0);
        if (child.kind != Kind::as_is) transpose(b.matrix(op.matrix[k], c), columns[k]);
      }
      Real* destination = b.partial(op.destination, c, 0);
      constexpr Kind tip = Kind::tip, partials = Kind::partials, any = Kind::any;
      if (first_kind == tip && second_kind == tip)
        run_patterns<tip, tip>(b, children, unit, destination, first, last, largest);
      else if (first_kind == tip && second_kind == partials)
        run_patterns<tip, partials>(b, children, unit, destination, first, last, largest);
      else if (first_kind == partials && second_kind == tip)
        run_patterns<partials, tip>(b, children, unit, destination, first, last, largest);
      else if (first_kind == partials && second_kind == partials)
        run_patterns<partials, partials>(b, children, unit, destination, first, last, largest);
      else
        run_patterns<any, any>(b, children, unit, destination, first, last, largest);
    }

    // settle_exponent for every pattern, its branches on the children taken once.
    const int* inherited[2] = {nullptr, nullptr};
    int partial_children = 0;
    for (int k = 0; k < 2; ++k)
      if (op.child[k] >= 0 && !b.is_tip(op.child[k])) inherited[partial_children++] = b.exponent(op.child[k], 0);
    int* exponents = b.exponent(op.destination, 0);
    if (partial_children == 2) {
      for (int p = first; p < last; ++p) exponents[p] = inherited[0][p] + inherited[1][p];
    } else if (partial_children == 1) {
      for (int p = first; p < last; ++p) exponents[p] = inherited[0][p];
    } else {
      for (int p = first; p < last; ++p) exponents[p] = 0;
    }
    if constexpr (Policy::rescales) {
      // Nothing to rescale when one state of every pattern stays above the threshold, which one comparison per
      // block shows in the common case; otherwise pattern by pattern.
      V least = largest[0];
      for (int p = 1; p < last - first; ++p) least = largest[p] < least ? largest[p] : least;
      bool some_state_large = false;
      for (int l = 0; l < W; ++l) some_state_large |= !Policy::needs_rescale(least[l]) && least[l] > Real(0);
      if (some_state_large) return;
      for (int p = first; p < last; ++p) {
        const V& lanes = largest[p - first];
        Real most = 0;
        for (int l = 0; l < W; ++l) most = lanes[l] > most ? lanes[l] : most;
        if (!Policy::needs_rescale(most)) continue;
        const int e = Policy::rescale_exponent(most);
        exponents[p] += e;
        for (int c = 0; c < b.categories; ++c) {
          Real* values = b.partial(op.destination, c, p);
          for (int s = 0; s < S; ++s) values[s] = Policy::rescaled(values[s], e);
        }
      }
    }
  }

  // edge_pattern for patterns [first, last) into values[0, last - first): per category, `parent`'s partials joined
  // with `child` seen through the edge's matrix, weighed by the frequencies (Policy::at_root) and by the category's
  // weight, summed over the categories in their order.
  template <Kind K>
  static CUDP_PRUNING_LANES_INLINE void edge_patterns(const PruningBuffers<Real>& b, const Child& child,
                                                      const Real* upper, const Real* frequencies, Real weight,
                                                      int first, int last, Real* values) {
    for (int p = first; p < last; ++p) {
      V joined[vectors], lower[vectors];
      load(upper + static_cast<std::ptrdiff_t>(p) * S, joined);
      through<K>(b, child, p, lower);
      for (int i = 0; i < vectors; ++i) joined[i] *= lower[i];
      alignas(64) Real staged[padded];
      for (int i = 0; i < vectors; ++i) put(staged + i * W, joined[i]);
      values[p - first] += weight * Policy::at_root(frequencies, staged);
    }
  }

  static CUDP_PRUNING_LANES_INLINE void edge(const PruningBuffers<Real>& b, const EdgeSum<Real>& e, int first,
                                             int last, Real* values) {
    alignas(64) Real columns[(S + 1) * padded];
    for (int s = 0; s < padded; ++s) columns[S * padded + s] = s < S ? Policy::unit() : Real(0);
    Child child;
    child.kind = b.is_tip(e.child) ? Kind::tip : Kind::partials;
    if (child.kind == Kind::tip) child.codes = b.tip_codes + static_cast<std::ptrdiff_t>(e.child) * b.patterns;
    child.columns = columns;
    for (int p = 0; p < last - first; ++p) values[p] = Real(0);
    for (int c = 0; c < b.categories; ++c) {
      transpose(b.matrix(e.matrix, c), columns);
      const Real* upper = b.partial(e.parent, c, 0);
      if (child.kind == Kind::tip) {
        edge_patterns<Kind::tip>(b, child, upper, e.frequencies, e.weights[c], first, last, values);
      } else {
        child.partials = b.partial(e.child, c, 0);
        edge_patterns<Kind::partials>(b, child, upper, e.frequencies, e.weights[c], first, last, values);
      }
    }
  }
};

// The entry points, one per instruction set: an operation on a block of patterns, and an edge's sums over one. The
// build's own instruction set first (SSE2 on x86-64).
template <class Policy, class Real, int MaxPatterns>
void prune_block_baseline(const PruningBuffers<Real>& b, const PruningOperation& op, int first, int last) {
  BlockKernel<Policy, Real, 16, MaxPatterns>::run(b, op, first, last);
}
template <class Policy, class Real>
void edge_block_baseline(const PruningBuffers<Real>& b, const EdgeSum<Real>& e, int first, int last, Real* values) {
  BlockKernel<Policy, Real, 16, 1>::edge(b, e, first, last, values);
}

#if defined(CUDP_HAS_PRUNING_LANES_AVX2)
// AVX2, FMA left out on purpose (see the top of the file).
template <class Policy, class Real, int MaxPatterns>
__attribute__((target("avx2"))) void prune_block_avx2(const PruningBuffers<Real>& b, const PruningOperation& op,
                                                      int first, int last) {
  BlockKernel<Policy, Real, 32, MaxPatterns>::run(b, op, first, last);
}
template <class Policy, class Real>
__attribute__((target("avx2"))) void edge_block_avx2(const PruningBuffers<Real>& b, const EdgeSum<Real>& e,
                                                     int first, int last, Real* values) {
  BlockKernel<Policy, Real, 32, 1>::edge(b, e, first, last, values);
}

inline bool host_has_avx2() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has;
}
#endif

template <class Real>
using BlockFunction = void (*)(const PruningBuffers<Real>&, const PruningOperation&, int, int);
template <class Real>
using EdgeFunction = void (*)(const PruningBuffers<Real>&, const EdgeSum<Real>&, int, int, Real*);

// The entry points for this processor.
template <class Policy, class Real, int MaxPatterns>
BlockFunction<Real> prune_block_for_this_host() {
#if defined(CUDP_HAS_PRUNING_LANES_AVX2)
  if (host_has_avx2()) return &prune_block_avx2<Policy, Real, MaxPatterns>;
#endif
  return &prune_block_baseline<Policy, Real, MaxPatterns>;
}
template <class Policy, class Real>
EdgeFunction<Real> edge_block_for_this_host() {
#if defined(CUDP_HAS_PRUNING_LANES_AVX2)
  if (host_has_avx2()) return &edge_block_avx2<Policy, Real>;
#endif
  return &edge_block_baseline<Policy, Real>;
}

}  // namespace cudp::tiers::pruning_lanes

#undef CUDP_PRUNING_LANES_INLINE
#endif
