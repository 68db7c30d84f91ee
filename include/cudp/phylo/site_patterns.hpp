#pragma once
// Site-pattern compression: identical alignment columns have identical likelihoods, so each distinct column is
// computed once and weighted by how often it occurs.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "../io/error.hpp"
#include "character_alignment.hpp"
#include "character_coding.hpp"

namespace cudp::phylo {

struct SitePatterns {
  int taxa = 0, patterns = 0;
  std::vector<std::uint8_t> codes;   // [taxon][pattern], CharacterCoding codes
  std::vector<double> weights;       // [pattern]: how many sites have it
  std::vector<int> pattern_of_site;  // [site]

  int code(int taxon, int pattern) const {
    return codes[static_cast<std::size_t>(taxon) * static_cast<std::size_t>(patterns) +
                 static_cast<std::size_t>(pattern)];
  }
};

// Patterns in the order of their first site. A character the coding does not know is an error naming the taxon,
// the line its row starts on and the site.
inline SitePatterns compress_sites(const CharacterAlignment& alignment, const CharacterCoding& coding) {
  const std::size_t taxa = alignment.rows.size(), sites = alignment.sites();
  SitePatterns out;
  out.taxa = static_cast<int>(taxa);
  out.pattern_of_site.resize(sites);
  std::unordered_map<std::string, int> seen;
  std::vector<std::string> columns;
  std::string column(taxa, '\0');
  for (std::size_t site = 0; site < sites; ++site) {
    for (std::size_t t = 0; t < taxa; ++t) {
      const char letter = alignment.rows[t][site];
      const int code = coding.code(letter);
      if (code == CharacterCoding::invalid)
        throw io::InputError(io::format_error(alignment.source, alignment.lines.empty() ? 0 : alignment.lines[t],
                                              "taxon " + alignment.names[t] + ", site " + std::to_string(site + 1) +
                                                  ": " + io::quote_byte(letter) + " is not a " + coding.name() +
                                                  " character"));
      column[t] = static_cast<char>(code);
    }
    const auto [it, inserted] = seen.emplace(column, static_cast<int>(columns.size()));
    if (inserted) {
      columns.push_back(column);
      out.weights.push_back(0);
    }
    out.weights[static_cast<std::size_t>(it->second)] += 1;
    out.pattern_of_site[site] = it->second;
  }
  out.patterns = static_cast<int>(columns.size());
  out.codes.resize(taxa * columns.size());
  for (std::size_t p = 0; p < columns.size(); ++p)
    for (std::size_t t = 0; t < taxa; ++t) out.codes[t * columns.size() + p] = static_cast<std::uint8_t>(columns[p][t]);
  return out;
}

}  // namespace cudp::phylo
