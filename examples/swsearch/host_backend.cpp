#include <cstdio>
#include <thread>

#include <cudp/engine/host_scorer.hpp>

#include "backend.hpp"

namespace swsearch {

template <class L> using LocalSW = cudp::recurrences::Gotoh<cudp::recurrences::AlignMode::Local, L>;

ScoreTable score_with_host(const cudp::engine::SequencesView& queries, const cudp::engine::SequencesView& db,
                           const cudp::io::SubstitutionMatrix& matrix, cudp::recurrences::GapCosts gaps, int threads,
                           BackendReport& report, bool progress) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  report.device = "host, " + std::to_string(threads) + " threads";
  ScoreTable table;
  for (std::size_t q = 0; q < queries.count; ++q) {
    if (progress) std::fprintf(stderr, "\rcudp-swsearch: query %zu/%zu", q + 1, queries.count);
    table.push_back(cudp::engine::score_on_host<LocalSW>(gaps, matrix, matrix.size, queries.data(q),
                                                         static_cast<int>(queries.length(q)), db, threads, &report.cascade));
  }
  if (progress) std::fprintf(stderr, "\n");
  return table;
}

}  // namespace swsearch
