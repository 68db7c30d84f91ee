// The host's inter-sequence tier: one target per lane of a CPU vector (16 to 64 targets at once), the CPU twin of
// the GPU thread tier, as SWIPE does it. Compiled once per instruction set like lanes/host_vector-inl.hpp, after
// which it must be included.
//
// A group's rows (target residues) are taken B at a time: a band of B rows crosses the whole query, its B carries
// along the rows kept in registers and the carries down the columns kept in a buffer of m entries (a few kilobytes,
// L1-resident). Substitution scores come from tables per class of query columns (tiers/column_classes.hpp): at the
// start of a band, one byte-table lookup per class and band row gives that row's scores for every lane at once, so
// the lookups are paid once per B rows and the whole query, and a cell only loads its scores.
//
// The cells are the policy's own: top, left, diagonal, cell, last_row, last_column, in the order ColumnTile calls
// them, so every wavefront policy runs here with no code of its own.
#if defined(CUDP_TIERS_HOST_VECTOR_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef CUDP_TIERS_HOST_VECTOR_INL_HPP_
#undef CUDP_TIERS_HOST_VECTOR_INL_HPP_
#else
#define CUDP_TIERS_HOST_VECTOR_INL_HPP_
#endif

#include <hwy/aligned_allocator.h>
#include <hwy/highway.h>

#include <cstdint>
#include <stdexcept>

#include "../recurrences/concepts.hpp"
#include "column_classes.hpp"
#include "../host/parallel_for.hpp"
#include "target_groups.hpp"

HWY_BEFORE_NAMESPACE();
namespace cudp::tiers::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

template <class P, int B = 4>
struct HostVectorTier {
  using L = typename P::Lane;
  using Word = typename L::word;
  using T = typename L::scalar;
  using D = typename L::tag;
  using Down = typename P::Down;
  using Right = typename P::Right;
  using Acc = typename P::Acc;
  static constexpr int W = L::width;
  static constexpr int rows_per_band = B;

  // A worker's buffers, reused from group to group.
  struct Scratch {
    hwy::AlignedFreeUniquePtr<std::uint8_t[]> down_bytes{nullptr, hwy::AlignedFreer()};
    hwy::AlignedFreeUniquePtr<T[]> scores{nullptr, hwy::AlignedFreer()};
    Down* down = nullptr;

    Scratch(int m, int classes)
        : down_bytes(hwy::AllocateAligned<std::uint8_t>(sizeof(Down) * (static_cast<std::size_t>(m) + 1))),
          scores(hwy::AllocateAligned<T>(static_cast<std::size_t>(classes) * B * W)),
          down(reinterpret_cast<Down*>(down_bytes.get())) {}
  };

  // A band row's target codes, with what every class's lookup takes from them: the low nibble that indexes a
  // 16-byte table, and the lanes holding the pad code, which get the policy's pad score.
  struct RowCodes {
    hn::Vec<hn::Rebind<std::uint8_t, D>> codes, low;
    hn::Mask<D> pad;
  };

  static inline RowCodes row_codes(const std::uint8_t* band_row, int pad_code) {
    const hn::Rebind<std::uint8_t, D> du8;
    const D d;
    const auto codes = hn::Load(du8, band_row);
    Word wide_codes;
    if constexpr (sizeof(T) == 1) wide_codes = hn::BitCast(d, codes);
    else wide_codes = hn::PromoteTo(d, codes);
    return {codes, hn::And(codes, hn::Set(du8, 15)), hn::Eq(wide_codes, hn::Set(d, static_cast<T>(pad_code)))};
  }

  // The scores of one band row for every lane and one class of columns: the row's codes index the class's table,
  // 16 codes per byte lookup.
  static inline Word row_scores(const std::int8_t* table, int table_stride, const RowCodes& row) {
    const hn::Rebind<std::uint8_t, D> du8;
    const hn::ScalableTag<std::uint8_t> table_tag;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(table);
    auto looked = hn::TableLookupBytes(hn::LoadDup128(table_tag, bytes), row.low);
    for (int first = 16; first < table_stride; first += 16) {
      const auto part = hn::TableLookupBytes(hn::LoadDup128(table_tag, bytes + first), row.low);
      looked = hn::IfThenElse(hn::Gt(row.codes, hn::Set(du8, static_cast<std::uint8_t>(first - 1))), part, looked);
    }
    const hn::Rebind<std::int8_t, D> di8;
    const D d;
    Word s;
    if constexpr (sizeof(T) == 1) s = hn::BitCast(d, looked);
    else s = hn::PromoteTo(d, hn::BitCast(di8, looked));
    return hn::IfThenElse(row.pad, hn::Set(d, static_cast<T>(P::pad_score)), s);
  }

  // One group: W targets, every row against every query column. `flatten` pulls the policy's member functions, and
  // the lane operations they call, into this function, where the target's instructions are allowed.
  __attribute__((flatten)) HWY_NOINLINE static void align_group(const P& p, const TargetGroupsView& groups, int g,
                                                                const ColumnClassesView& classes, int m,
                                                                std::int32_t* scores, Scratch& scratch) {
    const D d;
    const int rows = groups.rows[g];
    const std::int32_t* lengths = groups.lengths + static_cast<std::size_t>(g) * W;
    const std::uint32_t* targets = groups.targets + static_cast<std::size_t>(g) * W;
    const std::uint8_t* sequence[W];
    for (int k = 0; k < W; ++k) sequence[k] = lengths[k] > 0 ? groups.residues + groups.offsets[targets[k]] : nullptr;
    Down* down = scratch.down;
    T* band_scores = scratch.scores.get();
    alignas(64) std::uint8_t band_codes[B][W];

    for (int j = 1; j <= m; ++j) down[j] = p.top(j);
    Acc acc = p.init();
    for (int first = 1; first <= rows; first += B) {
      // The band's residues, lane by lane; rows past a target's end hold the pad code (never observed, and under
      // every local maximum).
      for (int k = 0; k < W; ++k) {
        const int past = lengths[k] - first + 1;  // rows of this band the target has
        for (int b = 0; b < B; ++b)
          band_codes[b][k] = b < past ? sequence[k][first - 1 + b] : static_cast<std::uint8_t>(classes.pad_code);
      }
      for (int b = 0; b < B; ++b) {
        const RowCodes row = row_codes(band_codes[b], classes.pad_code);
        for (int c = 0; c < classes.classes; ++c)
          hn::Store(row_scores(classes.tables + static_cast<std::size_t>(c) * classes.table_stride, classes.table_stride, row),
                    d, band_scores + (static_cast<std::size_t>(c) * B + b) * W);
      }
      Word present[B], ending[B];
      bool any_ending[B] = {};
      if constexpr (P::observes_edges) {
        for (int b = 0; b < B; ++b) {
          std::uint64_t has_row = 0, ends = 0;
          for (int k = 0; k < W; ++k) {
            has_row |= static_cast<std::uint64_t>(first + b <= lengths[k]) << k;
            ends |= static_cast<std::uint64_t>(first + b == lengths[k]) << k;
          }
          present[b] = L::mask_from_bits(has_row);
          ending[b] = L::mask_from_bits(ends);
          any_ending[b] = ends != 0;
        }
      }
      Right across[B];
      for (int b = 0; b < B; ++b) across[b] = p.left(first + b);
      Word above_left = first == 1 ? p.top(0).h : p.left(first - 1).h;  // H(first-1, j-1)
      for (int j = 1; j <= m; ++j) {
        const T* s = band_scores + static_cast<std::size_t>(classes.column_class[j - 1]) * B * W;
        Down col = down[j];
        // Every diagonal term before any cell of the column writes its H, as ColumnTile does along a row.
        Word from_diag[B];
        from_diag[0] = p.diagonal(above_left, hn::Load(d, s));
        for (int b = 1; b < B; ++b) from_diag[b] = p.diagonal(across[b - 1].h, hn::Load(d, s + b * W));
        above_left = col.h;
        for (int b = 0; b < B; ++b) {
          p.cell(col, across[b], from_diag[b], acc);
          if constexpr (P::observes_edges)
            if (any_ending[b]) p.last_row(col, j, ending[b], acc);
        }
        down[j] = col;
      }
      if constexpr (P::observes_edges)
        for (int b = 0; b < B; ++b) p.last_column(across[b], first + b, present[b], acc);
    }
    alignas(64) T result[W];
    hn::Store(p.result(acc), d, result);
    for (int k = 0; k < W; ++k)
      if (lengths[k] > 0) scores[targets[k]] = result[k];
  }

  // Every group, handed out one at a time to `threads` workers (0: all hardware threads).
  static void run(const P& p, const TargetGroupsView& groups, const ColumnClassesView& classes, int m,
                  std::int32_t* scores, int threads = 0) {
    static_assert(recurrences::check_wavefront_policy<P>());
    if (groups.width != W) throw std::invalid_argument("host vector tier: target groups of another width");
    host::parallel_for(
        static_cast<std::size_t>(groups.count), threads, [&] { return Scratch(m, classes.classes); },
        [&](Scratch& scratch, std::size_t g) { align_group(p, groups, static_cast<int>(g), classes, m, scores, scratch); });
  }
};

}  // namespace cudp::tiers::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
