#pragma once
// The host tier: the CPU backend and the reference every device tier is tested against. One task at a time per
// worker thread, the query cut into strips of R columns, the carries between strips kept in a vector; the cell
// code is the same ColumnTile the device tiers run.
#include <cstdint>
#include <vector>

#include "../recurrences/concepts.hpp"
#include "column_tile.hpp"
#include "observers.hpp"
#include "../host/parallel_for.hpp"
#include "task_list.hpp"

namespace cudp::tiers {

template <int R = 32>
struct HostTier {
  static constexpr const char* name = "host";
  static constexpr int columns_per_thread = R;

  template <class P, class Observer = ScoreOnly>
  static void align_task(const P& p, const TaskList<P::Lane::width>& tasks, int t,
                         const ProfileView<typename P::Lane::scalar>& profile, int m, std::int32_t* scores,
                         std::vector<typename P::Right>& boundary, const Observer& observer = {}) {
    using L = typename P::Lane;
    using Word = typename L::word;
    constexpr int W = L::width;
    const int rows = tasks.rows[t];
    int lengths[W];
    for (int k = 0; k < W; ++k) lengths[k] = tasks.lengths[t * W + k];
    const std::uint8_t* stream = tasks.residues + tasks.offsets[t];
    boundary.resize(static_cast<std::size_t>(rows) + 1);

    const std::uint32_t* targets = tasks.targets + t * W;
    typename P::Acc acc = p.init();
    auto seen = observer.start(p);
    ColumnTile<P, R> tile;
    for (int j_first = 1; j_first <= m; j_first += R) {
      tile.reset(p, j_first);
      Word diag_next = p.top(j_first - 1).h;
      for (int i = 1; i <= rows; ++i) {
        typename P::Right carry = j_first == 1 ? p.left(i) : boundary[i];
        Word diag = diag_next;
        diag_next = carry.h;
        unsigned codes = load_row_codes<W>(stream + static_cast<std::size_t>(i - 1) * W);
        const typename L::scalar* score_rows[W];
        for (int k = 0; k < W; ++k) score_rows[k] = profile.data + ((codes >> (8 * k)) & 0xffu) * profile.stride + (j_first - 1);
        Word score[R];
        L::template gather<R>(score_rows, score);
        boundary[i] = tile.step(p, carry, diag, score, acc, i, j_first, m, lengths);
        if constexpr (Observer::observes_cells) observer.row(p, seen, tile.col, i, j_first, m, lengths, targets);
      }
    }
    Word result = p.result(acc);
    for (int k = 0; k < W; ++k)
      if (lengths[k] > 0) scores[targets[k]] = L::extract(result, k);
    observer.finish(p, seen, targets, lengths);
  }

  // Aligns every task; tasks are taken in order by `threads` workers (0: all hardware threads).
  template <class P, class Observer = ScoreOnly>
  static void run(const P& p, const TaskList<P::Lane::width>& tasks, const ProfileView<typename P::Lane::scalar>& profile,
                  int m, std::int32_t* scores, int threads = 0, const Observer& observer = {}) {
    static_assert(recurrences::check_wavefront_policy<P>());
    host::parallel_for(
        static_cast<std::size_t>(tasks.count), threads, [] { return std::vector<typename P::Right>(); },
        [&](std::vector<typename P::Right>& boundary, std::size_t t) {
          align_task(p, tasks, static_cast<int>(t), profile, m, scores, boundary, observer);
        });
  }
};

}  // namespace cudp::tiers
