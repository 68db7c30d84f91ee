#pragma once
// Query columns grouped by their substitution scores, for tiers that hold one target per SIMD lane: there, a row's
// scores differ from lane to lane, and are looked up from a small table per class of columns (one class per
// distinct query letter, with a substitution matrix) instead of gathered per lane from the query profile.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "task_list.hpp"

namespace cudp::tiers {

struct ColumnClassesView {
  const std::uint16_t* column_class = nullptr;  // per query column j-1
  const std::int8_t* tables = nullptr;          // class c, target code a: tables[c * table_stride + a]
  int classes = 0;
  int table_stride = 0;  // a multiple of 16: the tables are read 16 codes at a time
  int pad_code = 0;      // the profile's pad row; the tiers give it the lane policy's own pad score
};

struct ColumnClasses {
  std::vector<std::uint16_t> column_class;
  std::vector<std::int8_t> tables;
  int classes = 0, table_stride = 0, pad_code = 0;

  ColumnClassesView view() const { return {column_class.data(), tables.data(), classes, table_stride, pad_code}; }

  // The classes of the first m columns of a query profile (its last row the pad row). None when a score does not
  // fit in 8 bits or the profile has more codes than a byte indexes: those queries keep the gathering tiers.
  template <class Scalar>
  static std::optional<ColumnClasses> of(const ProfileView<Scalar>& profile, int m) {
    const int codes = profile.rows - 1;
    if (codes < 1 || profile.rows > 256) return std::nullopt;
    ColumnClasses out;
    out.pad_code = codes;
    out.table_stride = (profile.rows + 15) / 16 * 16;
    out.column_class.resize(static_cast<std::size_t>(m));
    std::map<std::vector<std::int8_t>, std::uint16_t> seen;
    std::vector<std::int8_t> column(static_cast<std::size_t>(out.table_stride), 0);
    for (int j = 0; j < m; ++j) {
      for (int a = 0; a < codes; ++a) {
        const long s = static_cast<long>(profile.data[static_cast<std::size_t>(a) * profile.stride + j]);
        if (s < -128 || s > 127) return std::nullopt;
        column[static_cast<std::size_t>(a)] = static_cast<std::int8_t>(s);
      }
      auto [at, added] = seen.emplace(column, static_cast<std::uint16_t>(seen.size()));
      if (added) {
        if (seen.size() > 0xffff) return std::nullopt;
        out.tables.insert(out.tables.end(), column.begin(), column.end());
      }
      out.column_class[static_cast<std::size_t>(j)] = at->second;
    }
    out.classes = static_cast<int>(seen.size());
    return out;
  }
};

}  // namespace cudp::tiers
