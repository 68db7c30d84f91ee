#pragma once
/// \file
/// E-values and bit scores rounded as BLAST+ prints them in its tabular output (blastp -outfmt 6: 2.16e-82, 0.002,
/// 0.25, 25; 285, 48.5), for the tools' BLAST-tabular formats.
#include <cstdio>
#include <string>

namespace cudp::apps {

/// An E-value as BLAST+ prints it (0.0 below 1e-180, then %.2e, %.3f, %.2f, %.1f or %.0f by size).
inline std::string blast_evalue(double e) {
  if (e < 1.0e-180) return "0.0";
  char buf[32];
  std::snprintf(buf, sizeof buf, e < 0.0009 ? "%.2e" : e < 0.1 ? "%.3f" : e < 1.0 ? "%.2f" : e < 10.0 ? "%.1f" : "%.0f", e);
  return buf;
}

/// A bit score as BLAST+ prints it (%.1f, whole numbers past 99.9, truncated; %.3e past 9999).
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
