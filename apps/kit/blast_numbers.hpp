#pragma once
// E-values and bit scores rounded as BLAST+ prints them in its tabular output (blastp -outfmt 6: 2.16e-82, 0.002,
// 0.25, 25; 285, 48.5), for the example programs' BLAST-tabular formats.
#include <cstdio>
#include <string>

namespace cudp::apps {

inline std::string blast_evalue(double e) {
  if (e < 1.0e-180) return "0.0";
  char buf[32];
  std::snprintf(buf, sizeof buf, e < 0.0009 ? "%.2e" : e < 0.1 ? "%.3f" : e < 1.0 ? "%.2f" : e < 10.0 ? "%.1f" : "%.0f", e);
  return buf;
}

inline std::string blast_bits(double bits) {
  char buf[32];
  if (bits > 9999) {
    std::snprintf(buf, sizeof buf, "%.3e", bits);
    return buf;
  }
  if (bits > 99.9) return std::to_string(static_cast<long>(bits));  // truncated, as BLAST does (285.8 -> 285)
  std::snprintf(buf, sizeof buf, "%.1f", bits);
  return buf;
}

}  // namespace cudp::apps
