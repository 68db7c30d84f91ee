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
// the line its row starts on and the site. A codon coding reads three columns per site: the alignment's length must
// be a multiple of 3, and a stop codon is an error (naming the codon and its columns).
inline SitePatterns compress_sites(const CharacterAlignment& alignment, const CharacterCoding& coding) {
  const std::size_t taxa = alignment.rows.size(), width = static_cast<std::size_t>(coding.width());
  const auto fail = [&](std::size_t t, const std::string& why) {
    throw io::InputError(io::format_error(alignment.source, alignment.lines.empty() ? 0 : alignment.lines[t],
                                          "taxon " + alignment.names[t] + ", " + why));
  };
  if (alignment.sites() % width != 0)
    throw io::InputError(io::format_error(alignment.source, std::to_string(alignment.sites()) +
                                                                " sites are not a whole number of codons (" +
                                                                coding.name() + " data need a multiple of 3)"));
  const std::size_t sites = alignment.sites() / width;
  SitePatterns out;
  out.taxa = static_cast<int>(taxa);
  out.pattern_of_site.resize(sites);
  std::unordered_map<std::string, int> seen;
  std::vector<std::string> columns;
  std::string column(taxa, '\0');
  for (std::size_t site = 0; site < sites; ++site) {
    for (std::size_t t = 0; t < taxa; ++t) {
      const char* letters = alignment.rows[t].data() + site * width;
      int code = CharacterCoding::invalid;
      if (width == 1) {
        code = coding.code(letters[0]);
        if (code == CharacterCoding::invalid)
          fail(t, "site " + std::to_string(site + 1) + ": " + io::quote_byte(letters[0]) + " is not a " +
                      coding.name() + " character");
      } else {
        code = coding.codon_code(letters[0], letters[1], letters[2]);
        const std::string where = "codon " + std::to_string(site + 1) + " (sites " + std::to_string(3 * site + 1) +
                                  "-" + std::to_string(3 * site + 3) + ")";
        if (code == CharacterCoding::stop_codon)
          fail(t, where + ": " + std::string(letters, 3) + " is a stop codon (universal genetic code)");
        if (code == CharacterCoding::invalid)
          for (std::size_t k = 0; k < 3; ++k)
            if (CharacterCoding::dna().code(letters[k]) == CharacterCoding::invalid)
              fail(t, "site " + std::to_string(3 * site + k + 1) + " in " + where + ": " + io::quote_byte(letters[k]) +
                          " is not a nucleotide");
      }
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
