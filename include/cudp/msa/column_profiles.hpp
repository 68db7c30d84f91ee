#pragma once
// The two profiles of one ClustalW 2.1 progressive step. Each row is an alignment column: 32 residue-code columns,
// then the column's gap opening and gap extension costs. Row 0 holds the costs before the first column; rows
// 1..length the columns.
//
// - The first (larger) profile is scored through the matrix: entry r of a column is the weighted mean of
//   matrix[residue][r] over the column's sequences, scaled down by the column's share of residues.
// - The second holds weighted residue frequencies, times 10.
// A column pair then scores sum_r first[r] * second[r] / 10 (profile_alignment.hpp).
//
// Gap costs are position-specific: lower where the profile already has gaps (in proportion to the residues
// there), higher within `gap_distance` of a gap, halved in hydrophilic stretches (columns where at least one
// sequence in 100 has a run of four or more hydrophilic residues), scaled by Pascarella and Argos's
// residue-specific factors elsewhere. The integer truncations follow ClustalW's float and double arithmetic step by
// step.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "../host/parallel_for.hpp"
#include "clustal_alphabet.hpp"
#include "clustal_matrices.hpp"
#include "clustal_parameters.hpp"

namespace cudp::msa {

inline constexpr int profile_open_column = 32;
inline constexpr int profile_extend_column = 33;
inline constexpr int profile_width = 34;

struct ColumnProfile {
  int length = 0;
  std::vector<std::array<int, profile_width>> rows;  // length + 2 rows, zero-filled

  explicit ColumnProfile(int columns = 0) : length(columns), rows(static_cast<std::size_t>(columns) + 2) {
    for (auto& r : rows) r.fill(0);
  }
  int open(int i) const { return rows[static_cast<std::size_t>(i)][profile_open_column]; }
  int extend(int i) const { return rows[static_cast<std::size_t>(i)][profile_extend_column]; }
};

// The sequences of one profile: member rows [first, last) of `rows` (pointers to residue codes), each at least
// `length` codes long (shorter sequences padded with gap codes).
struct ProfileMembers {
  const int* const* rows = nullptr;
  int first = 0;
  int last = 0;
  int length = 0;

  int count() const { return last - first; }
  const int* row(int s) const { return rows[static_cast<std::size_t>(s)]; }
  int at(int s, int column) const { return row(s)[static_cast<std::size_t>(column)]; }
};

namespace detail {

// Pascarella and Argos's residue-specific gap factors (ClustalW's table, as 180 - probability).
inline constexpr char pascarella_residues[] = "ACDEFGHKILMNPQRSTVYW";
inline constexpr int pascarella_probability[] = {87, 87, 104, 69, 80, 139, 100, 104, 68, 79,
                                                 71, 137, 126, 93, 128, 124, 111, 75, 100, 77};
inline constexpr int variable_window = 5;
inline constexpr int variable_floor = 50;

// Percent identity of a two-sequence profile, over the first sequence's residues below code 24 (ClustalW's test).
inline int two_sequence_identity(const ProfileMembers& m) {
  int count = 0, total = 0;
  for (int i = 0; i < m.length; ++i) {
    const int a = m.at(m.first, i), b = m.at(m.first + 1, i);
    if (a >= 0 && a < clustal_max_residue) {
      ++total;
      if (a == b) ++count;
    }
  }
  if (total == 0) return 0;
  return static_cast<int>(100.0f * static_cast<float>(count) / static_cast<float>(total));
}

// Per column: its gap count where it has gaps, else a negative mark for a gap-free column near a run of gapped
// columns (0 when none is near): the columns 1..distance-1 before a run get -1..-(distance-1) counting away from
// it (ClustalW writes the offset, -k for k before), the columns 1..distance after it -1..-distance. Later marks
// overwrite earlier ones, as ClustalW's single left-to-right sweep does.
inline std::vector<int> gap_distance_marks(const std::vector<int>& gaps, int length, int distance) {
  std::vector<int> marks(static_cast<std::size_t>(length) + 2, 0);
  auto g = [&](int i) { return gaps[static_cast<std::size_t>(i)]; };
  int i = 0;
  while (i < length) {
    if (g(i) <= 0) {
      marks[static_cast<std::size_t>(i)] = g(i);
      ++i;
      continue;
    }
    for (int j = -distance + 1; j < 0; ++j)
      if (i + j >= 0 && i + j < length && (g(i + j) == 0 || g(i + j) < j)) marks[static_cast<std::size_t>(i + j)] = j;
    while (i < length && g(i) > 0) {
      marks[static_cast<std::size_t>(i)] = g(i);
      ++i;
    }
    int j = 0;
    for (; j < distance; ++j) {
      if (g(i + j) > 0) break;
      if (i + j >= 0 && i + j < length && (g(i + j) == 0 || g(i + j) < -j))
        marks[static_cast<std::size_t>(i + j)] = -j - 1;
    }
    i += j;
  }
  return marks;
}

// Variable-zone weights of a two-sequence profile: the share of identical pairs in a window of 10, floored at 50.
inline std::vector<int> variable_zone_weights(const ProfileMembers& m) {
  std::vector<int> weight(static_cast<std::size_t>(m.length) + 2, 0);
  for (int i = 0; i < m.length; ++i) {
    int w = 0, t = 0;
    for (int j = i - variable_window; j < i + variable_window; ++j) {
      if (j < 0 || j >= m.length) continue;
      const int a = m.at(m.first, j), b = m.at(m.first + 1, j);
      if (!clustal_is_residue(a) || !clustal_is_residue(b)) continue;
      w += a == b ? 1 : 0;
      ++t;
    }
    w += t;
    w = t > 0 ? (w * 100) / (2 * t) : 100;
    weight[static_cast<std::size_t>(i)] = w < variable_floor ? variable_floor : w;
  }
  return weight;
}

// A table by code (0..127; any other code reads 0), for the per-member loops below.
using CodeTable = std::array<int, 128>;
inline int code_lookup(const CodeTable& table, int code) {
  return static_cast<unsigned>(code) < table.size() ? table[static_cast<std::size_t>(code)] : 0;
}

// 180 - Pascarella and Argos's probability by residue code (0 for codes not in their table and for non-residues).
inline const CodeTable& pascarella_by_code() {
  static const CodeTable table = [] {
    CodeTable t{};
    for (int code = 0; code <= clustal_max_residue; ++code)
      for (int k = 0; k < 20; ++k)
        if (pascarella_residues[k] == clustal_letter(code)) {
          t[static_cast<std::size_t>(code)] = 180 - pascarella_probability[k];
          break;
        }
    return t;
  }();
  return table;
}

}  // namespace detail

// Which position-specific gap costs a profile gets (set_gap_costs).
struct GapCostKinds {
  bool variable = false;     // variable-zone weights (close two-sequence profiles)
  bool residue = false;      // Pascarella and Argos's residue-specific factors
  bool hydrophilic = false;  // halved in hydrophilic stretches
};

inline GapCostKinds gap_cost_kinds(const ProfileMembers& m, const ClustalParameters& p) {
  const int identity = m.count() == 2 ? detail::two_sequence_identity(m) : 0;
  GapCostKinds kinds{false, !p.no_residue_gaps, !p.no_hydrophilic_gaps};
  if (!p.no_variable_gaps && identity > 60) {
    // Close pairs use the variable-zone penalties instead (ClustalW's -NOVGAP turns them on). ClustalW leaves its
    // gap distance unset on this path; the configured distance stands in, which agrees with clustalw on the oracle
    // sets (close_pairs under -NOVGAP and -GAPDIST=2).
    kinds = GapCostKinds{true, false, false};
  }
  if (p.dna) kinds = GapCostKinds{};
  return kinds;
}

// What the profile builders need from the members, per column, gathered in one pass over each member's row (on
// several threads for large profiles: integer sums, the same in any order).
struct MemberSums {
  std::vector<int> gaps;         // gaps, leaving out each row's leading and trailing ones unless end gaps count
  std::vector<int> residue;      // sum of 180 - Pascarella probability (empty unless asked for)
  std::vector<int> hydrophilic;  // 100 per member in a hydrophilic run of four or more, from column -3 (empty unless
                                 // asked for; columns -3..-1 unused)
  std::vector<std::array<int, clustal_table_size>> codes;  // the members' weight per code 0..31 (empty unless asked)
  int residues = 0;              // codes other than the two gap codes, over all members
};

namespace detail {

inline void add_member_sums(MemberSums& out, const ProfileMembers& m, int first, int last, const ClustalParameters& p,
                            const CodeTable& hydrophilic, const std::vector<int>* weights) {
  const int length = m.length;
  const CodeTable& factor = pascarella_by_code();
  const bool ends_free = !p.use_end_gaps && !p.end_gap_penalties;
  int* gaps = out.gaps.data();
  for (int s = first; s < last; ++s) {
    const int* row = m.row(s);
    int residues = 0;
    for (int j = 0; j < length; ++j) residues += row[j] != clustal_gap_new && row[j] != clustal_gap_old;
    out.residues += residues;
    int begin = 0, end = length;
    if (ends_free) {
      while (begin < length && !clustal_is_residue(row[begin])) ++begin;
      while (end > 0 && !clustal_is_residue(row[end - 1])) --end;
    }
    for (int j = begin; j < end; ++j) gaps[j] += !clustal_is_residue(row[j]);
    if (!out.residue.empty()) {
      int* w = out.residue.data();
      for (int j = 0; j < length; ++j) w[j] += code_lookup(factor, row[j]);
    }
    if (!out.hydrophilic.empty()) {
      // The run of hydrophilic columns ending at j counts there from its fourth column on, and its fourth adds its
      // first three (out.hydrophilic has three columns of room before column 0).
      int* w = out.hydrophilic.data() + 3;
      int run = 0;
      for (int j = 0; j < length; ++j) {
        run = (run + 1) & -code_lookup(hydrophilic, row[j]);  // no branch on the residues
        w[j] += 100 * (run >= 4);
        if (run == 4) {  // rare enough for a branch
          w[j - 1] += 100;
          w[j - 2] += 100;
          w[j - 3] += 100;
        }
      }
    }
    if (!out.codes.empty()) {
      const int weight = (*weights)[static_cast<std::size_t>(s)];
      auto* codes = out.codes.data();
      for (int j = 0; j < length; ++j) {
        const int code = row[j];
        if (static_cast<unsigned>(code) < static_cast<unsigned>(clustal_table_size))
          codes[j][static_cast<std::size_t>(code)] += weight;
      }
    }
  }
}

// 1 for the residue codes of -HYDROPHILIC's letters.
inline CodeTable hydrophilic_codes(const ClustalParameters& p) {
  CodeTable hydrophilic{};
  for (int code = 0; code <= clustal_max_residue; ++code)
    hydrophilic[static_cast<std::size_t>(code)] =
        p.hydrophilic_residues.find(clustal_letter(code)) != std::string::npos;
  return hydrophilic;
}

inline MemberSums empty_member_sums(int length, int gap_padding, const GapCostKinds& kinds, bool codes) {
  MemberSums sums;
  sums.gaps.assign(static_cast<std::size_t>(length + gap_padding), 0);
  if (kinds.residue) sums.residue.assign(static_cast<std::size_t>(length) + 2, 0);
  if (kinds.hydrophilic) sums.hydrophilic.assign(static_cast<std::size_t>(length) + 5, 0);  // from column -3
  if (codes) {
    sums.codes.resize(static_cast<std::size_t>(length));
    for (auto& c : sums.codes) c.fill(0);
  }
  return sums;
}

// Members times columns below which one thread gathers the sums.
inline constexpr long long member_sums_parallel_cells = 1 << 18;

}  // namespace detail

// The sums over members [m.first, m.last) for gap costs of `kinds` and, with `weights` (indexed like the member
// rows), the weighted code sums of the profile columns; on up to `threads` threads.
inline MemberSums member_sums(const ProfileMembers& m, const ClustalParameters& p, const GapCostKinds& kinds,
                              const std::vector<int>* weights, int threads = 1) {
  const int padding = p.gap_distance + 2;
  detail::CodeTable hydrophilic{};
  if (kinds.hydrophilic) hydrophilic = detail::hydrophilic_codes(p);
  MemberSums sums = detail::empty_member_sums(m.length, padding, kinds, weights != nullptr);
  const long long cells = static_cast<long long>(m.count()) * m.length;
  int parts = threads;
  if (cells < detail::member_sums_parallel_cells || parts < 2) parts = 1;
  if (parts > m.count()) parts = m.count();
  if (parts <= 1) {
    detail::add_member_sums(sums, m, m.first, m.last, p, hydrophilic, weights);
    return sums;
  }
  std::vector<MemberSums> partial(static_cast<std::size_t>(parts) - 1);
  host::parallel_for(static_cast<std::size_t>(parts), parts, [] { return 0; }, [&](int&, std::size_t part) {
    MemberSums* out = &sums;
    if (part > 0) {
      out = &partial[part - 1];
      *out = detail::empty_member_sums(m.length, padding, kinds, weights != nullptr);
    }
    const long long count = m.count(), k = static_cast<long long>(part);
    const int first = m.first + static_cast<int>(count * k / parts);
    const int last = m.first + static_cast<int>(count * (k + 1) / parts);
    detail::add_member_sums(*out, m, first, last, p, hydrophilic, weights);
  });
  for (const MemberSums& part : partial) {
    for (std::size_t j = 0; j < sums.gaps.size(); ++j) sums.gaps[j] += part.gaps[j];
    for (std::size_t j = 0; j < sums.residue.size(); ++j) sums.residue[j] += part.residue[j];
    for (std::size_t j = 0; j < sums.hydrophilic.size(); ++j) sums.hydrophilic[j] += part.hydrophilic[j];
    for (std::size_t j = 0; j < sums.codes.size(); ++j)
      for (std::size_t c = 0; c < clustal_table_size; ++c) sums.codes[j][c] += part.codes[j][c];
    sums.residues += part.residues;
  }
  return sums;
}

// Fills the gap-cost columns of `profile` from the members' sums (member_sums with the same `kinds`) and returns the
// per-column gap counts (which the matrix profile needs). `open` and `extend` are the step's integer gap costs
// (progressive_alignment.hpp derives them).
inline std::vector<int> set_gap_costs(ColumnProfile& profile, const ProfileMembers& m, const ClustalParameters& p,
                                      int open, int extend, const GapCostKinds& kinds, const MemberSums& sums) {
  const int n = m.count();
  const bool no_variable = !kinds.variable, no_hydrophilic = !kinds.hydrophilic, no_residue = !kinds.residue;
  const int distance = p.gap_distance;
  std::vector<int> gaps = sums.gaps;
  std::vector<int> variable;
  if (!no_variable) variable = detail::variable_zone_weights(m);
  const std::vector<int> marks = (p.dna || distance <= 0) ? gaps : detail::gap_distance_marks(gaps, m.length, distance);
  auto residue = [&](int j) { return sums.residue[static_cast<std::size_t>(j)] / n; };
  auto hydrophilic = [&](int j) {
    return static_cast<int>(static_cast<float>(sums.hydrophilic[static_cast<std::size_t>(j) + 3]) /
                            static_cast<float>(n));
  };

  for (int j = 0; j < m.length; ++j) {
    auto& row = profile.rows[static_cast<std::size_t>(j) + 1];
    const int mark = marks[static_cast<std::size_t>(j)];
    if (mark <= 0) {
      if (!p.dna) {
        float gw = 1.0f;
        bool halved = false;
        if (!no_variable) gw = static_cast<float>(gw * (variable[static_cast<std::size_t>(j)] / 100.0));
        if (!no_hydrophilic && hydrophilic(j) > 0) {
          gw = static_cast<float>(gw * 0.5);
          halved = true;
        }
        if (!no_residue && !halved) gw = static_cast<float>(gw * (residue(j) / 100.0));
        gw *= static_cast<float>(open);
        row[profile_open_column] = static_cast<int>(gw);
      } else {
        row[profile_open_column] = open;
      }
      row[profile_extend_column] = extend;
      if (mark < 0) {
        row[profile_open_column] =
            static_cast<int>(row[profile_open_column] * (2.0 + 2.0 * (distance + mark) / distance));
      }
    } else {
      const float share = static_cast<float>(n - gaps[static_cast<std::size_t>(j)]) / static_cast<float>(n);
      row[profile_open_column] = static_cast<int>(share * static_cast<float>(open));
      row[profile_extend_column] = static_cast<int>(0.5 * extend);
    }
    if (row[profile_open_column] <= 0) row[profile_open_column] = 1;
    if (row[profile_extend_column] <= 0) row[profile_extend_column] = 1;
  }
  if (p.end_gap_penalties) {
    profile.rows[0][profile_open_column] = open;
    profile.rows[0][profile_extend_column] = extend;
  } else {
    profile.rows[0][profile_open_column] = profile.rows[0][profile_extend_column] = 0;
    auto& last = profile.rows[static_cast<std::size_t>(m.length)];
    last[profile_open_column] = last[profile_extend_column] = 0;
  }
  gaps.resize(static_cast<std::size_t>(m.length));
  return gaps;
}

// The same, gathering the members' sums itself.
inline std::vector<int> set_gap_costs(ColumnProfile& profile, const ProfileMembers& m, const ClustalParameters& p,
                                      int open, int extend) {
  const GapCostKinds kinds = gap_cost_kinds(m, p);
  return set_gap_costs(profile, m, p, open, extend, kinds, member_sums(m, p, kinds, nullptr));
}

// The matrix-scored profile (the step's first profile). `weights` is indexed like the member rows; `codes`: the
// members' weighted code sums per column (MemberSums::codes).
inline void fill_matrix_profile(ColumnProfile& profile, const ProfileMembers& m, const std::vector<int>& gaps,
                                const ProfileMatrix& matrix, const std::vector<int>& weights,
                                const std::vector<std::array<int, clustal_table_size>>& codes_by_column,
                                int threads = 1) {
  const int n = m.count();
  int total = 0;
  for (int s = m.first; s < m.last; ++s) total += weights[static_cast<std::size_t>(s)];
  // The codes that count: residues and both gap codes (ClustalW's sum runs over these, in this order).
  std::array<int, clustal_max_residue + 3> codes{};
  for (int a = 0; a <= clustal_max_residue; ++a) codes[static_cast<std::size_t>(a)] = a;
  codes[clustal_max_residue + 1] = clustal_gap_new;
  codes[clustal_max_residue + 2] = clustal_gap_old;
  auto fill = [&](int pos) {
    auto& row = profile.rows[static_cast<std::size_t>(pos) + 1];
    if (gaps[static_cast<std::size_t>(pos)] == n) {
      for (int r = 0; r <= clustal_max_residue; ++r) row[r] = matrix.score[r][clustal_gap_new];
      row[clustal_gap_new] = matrix.score[clustal_gap_new][clustal_gap_new];
      row[clustal_gap_old] = matrix.score[clustal_gap_old][clustal_gap_new];
      return;
    }
    const auto& weighting = codes_by_column[static_cast<std::size_t>(pos)];
    // The codes present in this column, so that the sums skip the zero terms (integers: the same totals).
    int present[clustal_max_residue + 3];
    int count = 0;
    for (const int a : codes)
      if (weighting[static_cast<std::size_t>(a)] != 0) present[count++] = a;
    const float share = static_cast<float>(n - gaps[static_cast<std::size_t>(pos)]) / static_cast<float>(n);
    for (const int r : codes) {
      int f = 0;
      for (int k = 0; k < count; ++k)
        f += weighting[static_cast<std::size_t>(present[k])] *
             matrix.score[static_cast<std::size_t>(present[k])][static_cast<std::size_t>(r)];
      row[static_cast<std::size_t>(r)] = static_cast<int>((static_cast<float>(f) / static_cast<float>(total)) * share);
    }
  };
  // Columns in chunks of 64 across the threads (about 27 x 27 products a column): worth it on long profiles.
  constexpr int chunk = 64;
  const int chunks = (m.length + chunk - 1) / chunk;
  if (threads <= 1 || chunks < 4) {
    for (int pos = 0; pos < m.length; ++pos) fill(pos);
    return;
  }
  host::parallel_for(static_cast<std::size_t>(chunks), threads, [] { return 0; }, [&](int&, std::size_t c) {
    const int from = static_cast<int>(c) * chunk;
    for (int pos = from; pos < std::min(from + chunk, m.length); ++pos) fill(pos);
  });
}

inline void fill_matrix_profile(ColumnProfile& profile, const ProfileMembers& m, const std::vector<int>& gaps,
                                const ProfileMatrix& matrix, const std::vector<int>& weights) {
  fill_matrix_profile(profile, m, gaps, matrix, weights, member_sums(m, ClustalParameters{}, {}, &weights).codes);
}

// The frequency profile (the step's second profile): weighted residue and gap shares times 10, truncated.
inline void fill_frequency_profile(ColumnProfile& profile, const ProfileMembers& m, const std::vector<int>& weights,
                                   const std::vector<std::array<int, clustal_table_size>>& codes_by_column) {
  int total = 0;
  for (int s = m.first; s < m.last; ++s) total += weights[static_cast<std::size_t>(s)];
  for (int pos = 0; pos < m.length; ++pos) {
    auto& row = profile.rows[static_cast<std::size_t>(pos) + 1];
    if (total == 0) {
      for (int r = 0; r <= clustal_max_residue; ++r) row[static_cast<std::size_t>(r)] = 0;
      row[clustal_gap_new] = row[clustal_gap_old] = 0;
      continue;
    }
    const auto& sum = codes_by_column[static_cast<std::size_t>(pos)];
    auto share = [&](int code) {
      return static_cast<int>(10 * static_cast<float>(sum[static_cast<std::size_t>(code)]) / static_cast<float>(total));
    };
    for (int r = 0; r <= clustal_max_residue; ++r) row[static_cast<std::size_t>(r)] = share(r);
    row[clustal_gap_new] = share(clustal_gap_new);
    row[clustal_gap_old] = share(clustal_gap_old);
  }
}

inline void fill_frequency_profile(ColumnProfile& profile, const ProfileMembers& m, const std::vector<int>& weights) {
  fill_frequency_profile(profile, m, weights, member_sums(m, ClustalParameters{}, {}, &weights).codes);
}

}  // namespace cudp::msa
