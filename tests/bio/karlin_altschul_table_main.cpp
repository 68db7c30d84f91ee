// Prints cudp's tabulated gapped Karlin-Altschul parameters, one line per (matrix, gap cost):
//   MATRIX OPEN EXTEND LAMBDA K H
// for tests/oracle/karlin_altschul_vs_blastp.py, which asks blastp for the same triples.
#include <cstdio>

#include "cudp/bio/karlin_altschul.hpp"

int main() {
  for (const auto& table : cudp::bio::detail::karlin_altschul_tables)
    for (std::size_t i = 0; i < table.count; ++i) {
      const auto& row = table.rows[i];
      std::printf("%.*s %d %d %.17g %.17g %.17g\n", static_cast<int>(table.matrix.size()), table.matrix.data(),
                  row.gap_open, row.gap_extend, row.params.lambda, row.params.K, row.params.H);
    }
}
