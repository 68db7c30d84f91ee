#pragma once
// An alignment that sequences join one at a time, as in ClustalW's second progressive pass (the sequences delayed by
// MAXDIV, each aligned against the profile of everything aligned so far).
//
// Rewriting every row at each join, and summing every row's columns for the next profile, costs rows x columns a
// join: on divergent families, where ClustalW delays most sequences, that is N^2 x columns over the pass. Here the
// rows are never rewritten: every column the alignment ever had keeps a number (its id), each row keeps its
// non-gap codes with their column ids, and a join only inserts ids into the column order. What the profile needs of
// the unweighted rows (gap counts, residue-specific factors, hydrophilic runs) is kept per column id and updated
// where a join changes it, and so are the rows' code counts per column; the weighted code sums (the weights change
// at every join) are the commonest weight times those counts plus what the rows of other weights add, read over
// their codes rather than their columns. member_sums on the written-out rows gives the same sums, to the integer
// (tests/msa/growing_alignment_test.cpp).
//
// Rows hold residue codes and input gaps (clustal_gap_old); gaps the alignment inserts (clustal_gap_new) are the
// codes not stored. A hydrophilic run is broken by any gap, so a column inserted between two hydrophilic residues
// of a row splits that row's run, and those runs are counted again.
#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "../host/parallel_for.hpp"
#include "clustal_alphabet.hpp"
#include "clustal_parameters.hpp"
#include "column_profiles.hpp"
#include "profile_alignment.hpp"

namespace cudp::msa {

class GrowingAlignment {
 public:
  // Whether a row can be held: residues, input gaps and inserted gaps only (no end-of-alignment marks).
  static bool representable(const std::vector<int>& row) {
    return std::all_of(row.begin(), row.end(), [](int c) {
      return clustal_is_residue(c) || c == clustal_gap_old || c == clustal_gap_new;
    });
  }

  // The aligned rows rows[s] for s in `members` (rows shorter than the longest read as ending in inserted gaps).
  GrowingAlignment(const std::vector<std::vector<int>>& rows, const std::vector<int>& members,
                   const ClustalParameters& p)
      : hydrophilic_(detail::hydrophilic_codes(p)), factor_(detail::pascarella_by_code()) {
    std::size_t length = 0;
    for (const int s : members) length = std::max(length, rows[static_cast<std::size_t>(s)].size());
    for (std::size_t j = 0; j < length; ++j) order_.push_back(new_column());
    position_.resize(order_.size());
    for (std::size_t j = 0; j < order_.size(); ++j)
      position_[static_cast<std::size_t>(order_[j])] = static_cast<int>(j);
    for (const int s : members) {
      const std::vector<int>& row = rows[static_cast<std::size_t>(s)];
      if (!representable(row)) throw std::invalid_argument("GrowingAlignment: a row holds a code it cannot keep");
      std::vector<Entry> entries;
      for (std::size_t j = 0; j < row.size(); ++j)
        if (row[j] != clustal_gap_new) entries.push_back(Entry::of(order_[j], row[j]));
      add_row(s, std::move(entries));
    }
  }

  int rows() const { return static_cast<int>(rows_.size()); }
  int length() const { return static_cast<int>(order_.size()); }

  // member_sums of the rows for `kinds`, with the weighted code sums under `weights` (indexed by sequence).
  MemberSums sums(const ClustalParameters& p, const GapCostKinds& kinds, const std::vector<int>& weights,
                  int threads = 1) const {
    const int length = this->length();
    MemberSums sums = detail::empty_member_sums(length, p.gap_distance + 2, kinds, true);
    sums.residues = residues_;
    const bool ends_free = !p.use_end_gaps && !p.end_gap_penalties;
    int covering = 0;  // rows whose first residue is at or before the column and whose last is at or after it
    for (int j = 0; j < length; ++j) {
      const auto id = static_cast<std::size_t>(order_[static_cast<std::size_t>(j)]);
      covering += first_residues_[id];
      sums.gaps[static_cast<std::size_t>(j)] = (ends_free ? covering : rows()) - residue_rows_[id];
      covering -= last_residues_[id];
      if (kinds.residue) sums.residue[static_cast<std::size_t>(j)] = factor_sums_[id];
      if (kinds.hydrophilic) sums.hydrophilic[static_cast<std::size_t>(j) + 3] = 100 * hydrophilic_rows_[id];
    }
    weighted_codes(weights, threads, sums.codes);
    return sums;
  }

  // Sequence `s` (its unaligned codes, `codes`) joins along `path`: the path of a profile step with this alignment
  // as the first profile and the sequence as the second.
  void add(int s, const std::vector<int>& codes, const std::vector<PathStep>& path) {
    if (!representable(codes)) throw std::invalid_argument("GrowingAlignment: a row holds a code it cannot keep");
    const auto steps = [&](PathStep skipped) {
      return static_cast<std::size_t>(
          std::count_if(path.begin(), path.end(), [&](PathStep x) { return x != skipped; }));
    };
    if (steps(PathStep::second_only) != order_.size() || steps(PathStep::first_only) != codes.size())
      throw std::invalid_argument("GrowingAlignment: the path does not fit the alignment and the sequence");
    std::vector<int> order;
    order.reserve(path.size());
    std::vector<std::pair<int, int>> splits;  // columns once adjacent that an inserted column now separates
    std::size_t old = 0;
    for (const PathStep step : path) {
      if (step == PathStep::second_only) {
        if (old > 0 && old < order_.size() &&
            (splits.empty() || splits.back().second != order_[old]))
          splits.emplace_back(order_[old - 1], order_[old]);
        order.push_back(new_column());
      } else {
        order.push_back(order_[old++]);
      }
    }
    std::vector<int> position(static_cast<std::size_t>(next_id_));
    for (std::size_t j = 0; j < order.size(); ++j) position[static_cast<std::size_t>(order[j])] = static_cast<int>(j);
    split_runs(splits, position);
    order_ = std::move(order);
    position_ = std::move(position);

    std::vector<Entry> entries;
    std::size_t at = 0;
    for (std::size_t j = 0; j < path.size(); ++j) {
      if (path[j] == PathStep::first_only) continue;
      const int code = codes[at++];
      if (code != clustal_gap_new) entries.push_back(Entry::of(order_[j], code));
    }
    add_row(s, std::move(entries));
  }

  // Writes every row out: rows[s] for each sequence s held, all of length() codes.
  void write_rows(std::vector<std::vector<int>>& rows) const {
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      std::vector<int>& row = rows[static_cast<std::size_t>(sequence_[r])];
      row.assign(order_.size(), clustal_gap_new);
      for (const Entry& e : rows_[r]) row[static_cast<std::size_t>(at(e))] = e.code();
    }
  }

 private:
  // A stored code and its column id in one word, id * 32 + code: the index of its count in a table of CodeSums by
  // column id, so that the weighted sums read half the memory a pair of ints would take.
  struct Entry {
    int packed;
    static Entry of(int id, int code) { return {id * clustal_table_size + code}; }
    int id() const { return packed / clustal_table_size; }
    int code() const { return packed % clustal_table_size; }
  };
  using CodeSums = std::array<int, clustal_table_size>;

  int new_column() {
    code_rows_.resize(code_rows_.size() + clustal_table_size, 0);
    residue_rows_.push_back(0);
    first_residues_.push_back(0);
    last_residues_.push_back(0);
    factor_sums_.push_back(0);
    hydrophilic_rows_.push_back(0);
    hydrophilic_at_.emplace_back();
    return next_id_++;
  }

  bool hydrophilic(int code) const { return detail::code_lookup(hydrophilic_, code) != 0; }
  int at(const Entry& e) const { return position_[static_cast<std::size_t>(e.id())]; }

  // Adds `delta` to the hydrophilic count of every column of each run of four or more among entries [from, to)
  // of `row` (all hydrophilic), runs being entries in consecutive columns of `position`.
  void count_runs(const std::vector<Entry>& row, std::size_t from, std::size_t to, const std::vector<int>& position,
                  int delta) {
    std::size_t start = from;
    for (std::size_t t = from; t <= to; ++t) {
      const bool ends = t == to || (t > start && position[static_cast<std::size_t>(row[t].id())] !=
                                                     position[static_cast<std::size_t>(row[t - 1].id())] + 1);
      if (!ends) continue;
      if (t - start >= 4)
        for (std::size_t u = start; u < t; ++u) hydrophilic_rows_[static_cast<std::size_t>(row[u].id())] += delta;
      start = t;
    }
  }

  void add_row(int s, std::vector<Entry> entries) {
    const int r = rows();
    int first = -1, last = -1;
    for (std::size_t t = 0; t < entries.size(); ++t) {
      const Entry& e = entries[t];
      const auto id = static_cast<std::size_t>(e.id());
      ++code_rows_[static_cast<std::size_t>(e.packed)];
      if (!clustal_is_residue(e.code())) continue;
      ++residues_;
      ++residue_rows_[id];
      factor_sums_[id] += detail::code_lookup(factor_, e.code());
      if (hydrophilic(e.code())) hydrophilic_at_[id].push_back(r);
      if (first < 0) first = static_cast<int>(t);
      last = static_cast<int>(t);
    }
    if (first >= 0) {
      ++first_residues_[static_cast<std::size_t>(entries[static_cast<std::size_t>(first)].id())];
      ++last_residues_[static_cast<std::size_t>(entries[static_cast<std::size_t>(last)].id())];
    }
    for (std::size_t t = 0; t < entries.size();) {  // the row's hydrophilic stretches of entries
      if (!hydrophilic(entries[t].code())) {
        ++t;
        continue;
      }
      std::size_t end = t + 1;
      while (end < entries.size() && hydrophilic(entries[end].code())) ++end;
      count_runs(entries, t, end, position_, 1);
      t = end;
    }
    rows_.push_back(std::move(entries));
    sequence_.push_back(s);
  }

  // The runs that crossed a split (between columns a and b, adjacent in the old order) counted again: once as they
  // were (in the old positions, removed) and as the pieces the new positions leave (added).
  void split_runs(const std::vector<std::pair<int, int>>& splits, const std::vector<int>& position) {
    struct Crossing {
      int row;
      std::size_t entry;  // the row's entry in column a
    };
    std::vector<Crossing> crossings;
    for (const auto& [a, b] : splits) {
      const std::vector<int>& left = hydrophilic_at_[static_cast<std::size_t>(a)];
      const std::vector<int>& right = hydrophilic_at_[static_cast<std::size_t>(b)];
      std::size_t x = 0, y = 0;
      while (x < left.size() && y < right.size()) {  // both ascending: the rows hydrophilic on both sides
        if (left[x] < right[y]) {
          ++x;
        } else if (right[y] < left[x]) {
          ++y;
        } else {
          const std::vector<Entry>& row = rows_[static_cast<std::size_t>(left[x])];
          const int column = position_[static_cast<std::size_t>(a)];
          const auto it = std::lower_bound(row.begin(), row.end(), column,
                                           [&](const Entry& e, int c) { return at(e) < c; });
          crossings.push_back({left[x], static_cast<std::size_t>(it - row.begin())});
          ++x;
          ++y;
        }
      }
    }
    std::sort(crossings.begin(), crossings.end(), [](const Crossing& u, const Crossing& v) {
      return u.row != v.row ? u.row < v.row : u.entry < v.entry;
    });
    int done_row = -1;
    std::size_t done_end = 0;  // entries before this one of done_row are counted again already
    for (const Crossing& c : crossings) {
      if (c.row == done_row && c.entry < done_end) continue;
      const std::vector<Entry>& row = rows_[static_cast<std::size_t>(c.row)];
      std::size_t from = c.entry, to = c.entry + 1;
      while (from > 0 && hydrophilic(row[from - 1].code()) && at(row[from - 1]) + 1 == at(row[from])) --from;
      while (to < row.size() && hydrophilic(row[to].code()) && at(row[to - 1]) + 1 == at(row[to])) ++to;
      count_runs(row, from, to, position_, -1);
      count_runs(row, from, to, position, 1);
      done_row = c.row;
      done_end = to;
    }
  }

  // The weighted code sums per column of the current order; inserted gaps take the weight the stored codes leave.
  // The weights of a join are mostly one value (on large alignments nearly all are 1, ClustalW's floor), so the sums
  // start from that weight times the rows' code counts, and only the rows weighing otherwise are read.
  void weighted_codes(const std::vector<int>& weights, int threads, std::vector<CodeSums>& out) const {
    const std::size_t ids = static_cast<std::size_t>(next_id_);
    long long total = 0;
    int heaviest = 0;
    for (const int s : sequence_) {
      const int w = weights[static_cast<std::size_t>(s)];
      total += w;
      heaviest = std::max(heaviest, w);
    }
    std::vector<int> rows_of_weight(static_cast<std::size_t>(heaviest) + 1, 0);
    for (const int s : sequence_) {
      const int w = weights[static_cast<std::size_t>(s)];
      if (w >= 0) ++rows_of_weight[static_cast<std::size_t>(w)];
    }
    const int common = static_cast<int>(std::max_element(rows_of_weight.begin(), rows_of_weight.end()) -
                                        rows_of_weight.begin());
    std::vector<std::size_t> others;  // rows weighing other than `common`
    long long cells = 0;
    for (std::size_t r = 0; r < rows_.size(); ++r)
      if (weights[static_cast<std::size_t>(sequence_[r])] != common) {
        others.push_back(r);
        cells += static_cast<long long>(rows_[r].size());
      }
    int parts = cells < detail::member_sums_parallel_cells ? 1 : std::max(1, threads);
    parts = std::max(1, std::min(parts, static_cast<int>(others.size())));
    if (static_cast<int>(partial_.size()) < parts) partial_.resize(static_cast<std::size_t>(parts));
    auto gather = [&](int part) {
      std::vector<int>& counts = partial_[static_cast<std::size_t>(part)];  // by Entry::packed
      counts.assign(ids * clustal_table_size, 0);
      const std::size_t first = others.size() * static_cast<std::size_t>(part) / static_cast<std::size_t>(parts);
      const std::size_t last = others.size() * static_cast<std::size_t>(part + 1) / static_cast<std::size_t>(parts);
      for (std::size_t k = first; k < last; ++k) {
        const std::size_t r = others[k];
        const int extra = weights[static_cast<std::size_t>(sequence_[r])] - common;
        for (const Entry& e : rows_[r]) counts[static_cast<std::size_t>(e.packed)] += extra;
      }
    };
    auto finish = [&](std::size_t from, std::size_t to) {  // columns [from, to) of the order
      for (std::size_t j = from; j < to; ++j) {
        const std::size_t at = static_cast<std::size_t>(order_[j]) * clustal_table_size;
        CodeSums c{};
        for (std::size_t k = 0; k < c.size(); ++k) c[k] = common * code_rows_[at + k];
        for (int part = 0; part < parts; ++part) {
          const int* more = partial_[static_cast<std::size_t>(part)].data() + at;
          for (std::size_t k = 0; k < c.size(); ++k) c[k] += more[k];
        }
        long long stored = 0;
        for (const int v : c) stored += v;
        c[clustal_gap_new] = static_cast<int>(total - stored);
        out[j] = c;
      }
    };
    if (parts == 1) {
      gather(0);
      finish(0, order_.size());
      return;
    }
    host::parallel_for(static_cast<std::size_t>(parts), parts, [] { return 0; },
                       [&](int&, std::size_t part) { gather(static_cast<int>(part)); });
    host::parallel_for(static_cast<std::size_t>(parts), parts, [] { return 0; }, [&](int&, std::size_t part) {
      finish(order_.size() * part / static_cast<std::size_t>(parts),
             order_.size() * (part + 1) / static_cast<std::size_t>(parts));
    });
  }

  detail::CodeTable hydrophilic_;
  const detail::CodeTable& factor_;
  std::vector<int> order_;     // column ids, left to right
  std::vector<int> position_;  // column of each id in order_
  int next_id_ = 0;
  std::vector<std::vector<Entry>> rows_;  // each row's stored codes, left to right
  std::vector<int> sequence_;            // the sequence of each row
  int residues_ = 0;
  // Per column id: rows with a residue there, rows whose first / last residue is there, the residues' factors,
  // rows in a hydrophilic run of four or more there, and the rows with a hydrophilic residue there (ascending).
  std::vector<int> residue_rows_, first_residues_, last_residues_, factor_sums_, hydrophilic_rows_;
  std::vector<std::vector<int>> hydrophilic_at_;
  std::vector<int> code_rows_;  // rows with each stored code at each column id, by Entry::packed
  mutable std::vector<std::vector<int>> partial_;  // per thread, counts by Entry::packed; kept between joins
};

}  // namespace cudp::msa
