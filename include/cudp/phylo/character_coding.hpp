#pragma once
// Characters of an alignment as the likelihood sees them: a state, "any state" (gaps and missing data, which
// IQ-TREE, RAxML and PhyML all treat as a vector of ones), or an ambiguity set of states. A codon coding reads its
// states from three letters each.
#include <array>
#include <utility>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "genetic_code.hpp"

namespace cudp::phylo {

class CharacterCoding {
 public:
  static constexpr int invalid = -1;
  static constexpr int stop_codon = -2;

  const std::string& name() const { return name_; }
  int states() const { return states_; }
  // The letter of each state, in the order of the model's matrices (ACGT; ARNDCQEGHILKMFPSTWYV); for codons the
  // 61 sense codons separated by spaces (AAA AAC ... TTT).
  const std::string& letters() const { return letters_; }
  // Alignment columns per state: 1, or 3 for codons.
  int width() const { return width_; }
  // A code, as the pruning tiers read it (tiers/pruning_buffers.hpp): < states a state, == states any state,
  // larger an ambiguity set. invalid for a character this coding does not know.
  int code(char c) const { return codes_[static_cast<unsigned char>(c)]; }
  int code_count() const { return states_ + 1 + static_cast<int>(sets_.size()); }
  // The states a code allows, one bit each.
  std::uint64_t mask(int code) const {
    if (code < states_) return std::uint64_t{1} << code;
    if (code == states_) return all_states();
    return sets_[static_cast<std::size_t>(code - states_ - 1)];
  }
  std::uint64_t all_states() const { return states_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << states_) - 1; }

  // A codon coding's code for three letters: a sense codon's state; stop_codon; invalid when a letter is no
  // nucleotide letter; "any state" when a letter is a gap, unknown or ambiguity code. A partly ambiguous codon
  // (ARG, AC-) counts as unknown, as IQ-TREE reads it, not as the set of codons it could be, so that the two
  // programs compute the same likelihood.
  int codon_code(char first, char second, char third) const {
    const CharacterCoding& nt = dna();
    const int a = nt.code(first), b = nt.code(second), c = nt.code(third);
    if (a == invalid || b == invalid || c == invalid) return invalid;
    if (a >= 4 || b >= 4 || c >= 4) return states_;
    const int sense = genetic_code::sense_of_codon[static_cast<std::size_t>(a * 16 + b * 4 + c)];
    return sense < 0 ? stop_codon : sense;
  }

  // States known only by their codes, with no letters: data given as codes, such as random benchmark data, for
  // state counts that have no alphabet here yet.
  static CharacterCoding codes_only(std::string name, int states) {
    CharacterCoding c(std::move(name), "");
    c.states_ = states;
    return c;
  }

  static const CharacterCoding& dna() {
    static const CharacterCoding coding = [] {
      CharacterCoding c("DNA", "ACGT");
      c.add_letter('U', 1u << 3);
      for (const char any : std::string_view("N?-X.O~")) c.add_letter(any, 0xf);
      // IUPAC two- and three-base codes.
      const std::pair<char, unsigned> sets[] = {{'R', 0b0101}, {'Y', 0b1010}, {'S', 0b0110}, {'W', 0b1001},
                                                {'K', 0b1100}, {'M', 0b0011}, {'B', 0b1110}, {'D', 0b1101},
                                                {'H', 0b1011}, {'V', 0b0111}};
      for (const auto& [letter, mask] : sets) c.add_letter(letter, mask);
      return c;
    }();
    return coding;
  }

  static const CharacterCoding& protein() {
    static const CharacterCoding coding = [] {
      CharacterCoding c("protein", "ARNDCQEGHILKMFPSTWYV");
      const auto bit = [&c](char letter) { return std::uint64_t{1} << c.letters_.find(letter); };
      c.add_letter('B', bit('N') | bit('D'));
      c.add_letter('Z', bit('Q') | bit('E'));
      c.add_letter('J', bit('I') | bit('L'));
      // Selenocysteine and pyrrolysine have no column in the 20-state matrices: read as unknown, as X.
      for (const char any : std::string_view("X?-.~UO*")) c.add_letter(any, c.all_states());
      return c;
    }();
    return coding;
  }

  // The 61 sense codons of the universal genetic code, read from nucleotide data three columns at a time.
  static const CharacterCoding& codon() {
    static const CharacterCoding coding = [] {
      CharacterCoding c = codes_only("codon", genetic_code::sense_codons);
      c.width_ = 3;
      for (int s = 0; s < genetic_code::sense_codons; ++s)
        c.letters_ +=
            (s == 0 ? "" : " ") + genetic_code::codon_name(genetic_code::codon_of_sense[static_cast<std::size_t>(s)]);
      return c;
    }();
    return coding;
  }

 private:
  CharacterCoding(std::string name, std::string letters)
      : name_(std::move(name)), letters_(std::move(letters)), states_(static_cast<int>(letters_.size())) {
    codes_.fill(invalid);
    for (int s = 0; s < states_; ++s) add_letter(letters_[static_cast<std::size_t>(s)], std::uint64_t{1} << s);
  }

  void add_letter(char letter, std::uint64_t mask) {
    int code = invalid;
    if (mask == all_states()) {
      code = states_;
    } else if ((mask & (mask - 1)) == 0) {
      code = __builtin_ctzll(mask);
    } else {
      for (std::size_t i = 0; i < sets_.size() && code == invalid; ++i)
        if (sets_[i] == mask) code = states_ + 1 + static_cast<int>(i);
      if (code == invalid) {
        sets_.push_back(mask);
        code = states_ + static_cast<int>(sets_.size());
      }
    }
    codes_[static_cast<unsigned char>(letter)] = code;
    if (letter >= 'A' && letter <= 'Z') codes_[static_cast<unsigned char>(letter - 'A' + 'a')] = code;
  }

  std::string name_, letters_;
  int states_;
  int width_ = 1;
  std::array<int, 256> codes_{};
  std::vector<std::uint64_t> sets_;
};

}  // namespace cudp::phylo
