#pragma once
// The target database of cudp-hmmsearch, in the Plan7 (Easel) residue codes of the query models' alphabet.
//
// FASTA (plain or gzip) is read straight into those codes, its headers split as Easel splits them. A cudp-makedb database holds codes of cudp's own
// alphabets (bio::protein(): NCBI matrix order, U/O/J folded into X; bio::dna(): ACGTN), so its residues are
// translated through their letters; a database of the other kind than the models is refused.
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <cudp/bio/alphabet.hpp>
#include <cudp/hmmer/plan7_alphabet.hpp>
#include <cudp/io/database_file.hpp>
#include <cudp/io/error.hpp>
#include <cudp/io/fasta.hpp>
#include <cudp/io/sequence_set.hpp>
#include <cudp/io/shards.hpp>

namespace hmmsearch {

// hmmsearch 3.3.2 refuses targets longer than this ("over comparison pipeline limit"; nhmmer is for long DNA).
constexpr std::uint32_t kMaxTargetLength = 100000;

inline void check_target_lengths(const cudp::io::SequenceSet& set, const std::string& path) {
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (set.length(i) > kMaxTargetLength) {
      throw cudp::io::InputError(cudp::io::format_error(
          path, "sequence " + std::to_string(i + 1) + " ('" + set.names[i] + "') has " +
                    std::to_string(set.length(i)) + " residues; hmmsearch's pipeline takes targets of up to 100000 "
                    "(for long DNA, cut it into windows or use nhmmer)"));
    }
  }
}

// Standard input is read as plain text, as hmmsearch 3.3.2 reads it: gzip is recognised in named files only. A
// compressed stream would otherwise be reported as a malformed first line, its bytes quoted back.
inline bool looks_gzipped(int first_byte) { return first_byte == 0x1f; }

inline cudp::io::InputError gzip_on_standard_input(const std::string& what) {
  return cudp::io::InputError("standard input: the " + what + " are gzip-compressed; compressed input is read "
                              "from a named file only (give the .gz file's name, or decompress it with gzip -dc)");
}

// The whole text of a file (plain or gzip), or of standard input ('-'), read there as plain text as HMMER reads it:
// gzip on standard input is refused with the remedy, `what` naming its contents ("models", "query sequences").
inline std::string read_input_text(const std::string& path, const std::string& what) {
  if (path != "-") return cudp::io::read_file_text(path);
  std::string text = cudp::io::read_stream_text(stdin, "standard input");
  if (!text.empty() && looks_gzipped(static_cast<unsigned char>(text[0]))) throw gzip_on_standard_input(what);
  return text;
}

// The alphabet kind written in a cudp-makedb file's header (0 protein, 1 DNA), read without loading the file.
inline int packed_database_kind(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  unsigned char header[16];
  if (!file || std::fread(header, sizeof header, 1, file.get()) != 1)
    throw cudp::io::InputError(cudp::io::format_error(path, "too short to be a cudp database"));
  std::uint32_t kind = 0;
  std::memcpy(&kind, header + 8, sizeof kind);
  return static_cast<int>(kind);
}

// Loads path ('-': standard input, FASTA or a packed database) for models of the given alphabet; `models` names
// them in messages ("globins4.hmm"), and `role` the sequences (hmmscan's are its queries).
// A packed database is read on `threads` threads (0: all). With `shards` above 1, only shard `shard` is kept (a
// packed database reads no more of the file; FASTA is read whole, checked, then cut), and `part` says where it
// lies in the whole (io/shards.hpp).
inline cudp::io::SequenceSet load_database(const std::string& path, const cudp::hmmer::Plan7Alphabet& alphabet,
                                           const std::string& models, int threads = 0, int shard = 0,
                                           int shards = 1, cudp::io::DatabasePart* part = nullptr,
                                           const std::string& role = "target sequences") {
  cudp::io::DatabasePart whole;
  if (part == nullptr) part = &whole;
  using cudp::io::format_error;
  using cudp::io::InputError;
  cudp::io::SequenceSet set;
  const std::string name = path == "-" ? "standard input" : path;
  // An input is opened once (a pipe cannot be opened again): its first bytes tell a packed database from FASTA.
  // hmmsearch cannot read gzip from standard input; cudp could, but refuses it as hmmsearch does, with the remedy.
  cudp::io::SequenceInput input(path == "-" ? "/dev/stdin" : path, name);
  if (path == "-" && input.compressed()) throw gzip_on_standard_input(role);
  if (input.is_database()) {
    const std::uint32_t kind = input.database_kind();
    const bool protein_models = alphabet.kind == cudp::bio::AlphabetKind::Protein;
    if (kind != 0 && kind != 1)
      throw InputError(format_error(name, "corrupt database: unknown alphabet kind " + std::to_string(kind)));
    if ((kind == 0) != protein_models) {
      throw InputError(format_error(name, std::string("the database holds ") + (kind == 0 ? "protein" : "DNA") +
                                              " sequences but the models of " + models + " are " + alphabet.name +
                                              " models"));
    }
    const cudp::bio::Alphabet& packed = kind == 0 ? cudp::bio::protein() : cudp::bio::dna();
    // Code -> letter -> Plan7 code, applied by the readers as they load the residues.
    std::array<std::uint8_t, 256> to_plan7{};
    for (int code = 0; code < packed.size; ++code) {
      const int p = alphabet.sequence_alphabet.encode(packed.letters[code]);
      if (p < 0) throw std::logic_error(std::string("no Plan7 code for letter ") + packed.letters[code]);
      to_plan7[static_cast<std::size_t>(code)] = static_cast<std::uint8_t>(p);
    }
    cudp::io::DatabaseReadOptions reading;
    reading.threads = threads;
    reading.recode = &to_plan7;
    reading.shard = shard;
    reading.shards = shards;
    reading.part = part;
    set = input.read_database(packed, reading);
    for (std::size_t i = 0; i < set.size(); ++i) {
      if (set.length(i) == 0)
        throw InputError(format_error(name, "sequence " + std::to_string(part->first + i + 1) + " ('" +
                                                set.names[i] + "') is empty"));
    }
    if (part->sequences == 0) throw InputError(format_error(name, "the database holds no sequences"));
    check_target_lengths(set, name);
    return set;
  }
  try {
    set = input.read_fasta(alphabet.sequence_alphabet, cudp::io::FastaHeaders::easel);
  } catch (const InputError& e) {
    // An invalid letter is most often a database of the other alphabet: say what the models expected.
    if (std::strstr(e.what(), "invalid residue") != nullptr)
      throw InputError(std::string(e.what()) + "; the models of " + models + " are " + alphabet.name +
                       " models, so the database must hold " + alphabet.name + " sequences");
    throw;
  }
  // Nucleotides are letters of the amino alphabet too; a protein search of them would run and find nothing.
  if (alphabet.kind == cudp::bio::AlphabetKind::Protein && set.total_residues() >= 20) {
    bool all_nucleotide = true;
    for (std::uint8_t r : set.residues) {
      const char c = alphabet.symbols[r];
      if (c != 'A' && c != 'C' && c != 'G' && c != 'T' && c != 'U' && c != 'N') {
        all_nucleotide = false;
        break;
      }
    }
    if (all_nucleotide) {
      throw InputError(format_error(name, "every residue is A, C, G, T, U or N: these are nucleotide sequences, but "
                                          "the models of " + models + " are amino (protein) models"));
    }
  }
  check_target_lengths(set, name);
  return cudp::io::take_shard(std::move(set), shard, shards, part);
}

}  // namespace hmmsearch
