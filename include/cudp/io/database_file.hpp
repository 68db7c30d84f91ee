#pragma once
// Packed sequence databases: a SequenceSet stored as its in-memory arrays, so that a search over a large database
// loads it with a few bulk reads instead of parsing FASTA every time.
//
// Layout, all integers little-endian:
//   char     magic[8]            "CUDPDB01"
//   u32      alphabet kind       0 protein, 1 DNA
//   u32      alphabet size       number of residue codes
//   u64      n                   number of sequences
//   u64      r                   number of residues
//   u64      t                   bytes of header text
//   u64      offsets[n + 1]      sequence i is residues[offsets[i], offsets[i+1])
//   u32      name_lengths[n]
//   u32      description_lengths[n]
//   u8       residues[r]         alphabet codes
//   char     text[t]             name 0, description 0, name 1, description 1, ...
// The file size is exactly the sum of these, which catches truncation before anything is allocated.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "../bio/alphabet.hpp"
#include "error.hpp"
#include "fasta.hpp"
#include "sequence_set.hpp"

// The arrays go to and from disk with a single fwrite/fread each, which is only the documented format on a
// little-endian host.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cudp database files are read and written in host byte order, which must be little-endian"
#endif

namespace cudp::io {

namespace detail {

inline constexpr char database_magic[8] = {'C', 'U', 'D', 'P', 'D', 'B', '0', '1'};

struct DatabaseHeader {
  char magic[8];
  std::uint32_t alphabet_kind;
  std::uint32_t alphabet_size;
  std::uint64_t sequences;
  std::uint64_t residues;
  std::uint64_t text_bytes;
};
static_assert(sizeof(DatabaseHeader) == 40, "the header is written as raw bytes");

// Written as numbers of our own rather than the enum's values, so that reordering the enum cannot change the format.
inline std::uint32_t alphabet_kind_id(bio::AlphabetKind kind) { return kind == bio::AlphabetKind::Protein ? 0 : 1; }
inline const char* alphabet_kind_id_name(std::uint32_t id) { return id == 0 ? "protein" : id == 1 ? "DNA" : nullptr; }

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// Removes the temporary file unless the write got as far as renaming it.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::string path) : path_(std::move(path)) {}
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  const std::string& path() const { return path_; }
  void release() { path_.clear(); }

 private:
  std::string path_;
};

}  // namespace detail

// Writes path.tmp and renames it over path, so that readers never see a partial database, even after a crash.
inline void write_database(const std::string& path, const SequenceSet& set, const bio::Alphabet& alphabet) {
  const std::size_t n = set.size();
  if (set.offsets.size() != n + 1 || set.descriptions.size() != n || set.offsets.front() != 0 ||
      set.offsets.back() != set.residues.size()) {
    throw std::invalid_argument("write_database: inconsistent SequenceSet");
  }
  for (const std::uint8_t code : set.residues) {
    if (code >= alphabet.size) throw std::invalid_argument("write_database: residue code outside the alphabet");
  }

  std::vector<std::uint32_t> name_lengths(n);
  std::vector<std::uint32_t> description_lengths(n);
  std::uint64_t text_bytes = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (set.names[i].size() > std::numeric_limits<std::uint32_t>::max() ||
        set.descriptions[i].size() > std::numeric_limits<std::uint32_t>::max()) {
      throw InputError(
          format_error(path, "the header of sequence '" + set.names[i].substr(0, 64) + "...' is longer than 4 GiB"));
    }
    name_lengths[i] = static_cast<std::uint32_t>(set.names[i].size());
    description_lengths[i] = static_cast<std::uint32_t>(set.descriptions[i].size());
    text_bytes += name_lengths[i] + description_lengths[i];
  }

  detail::DatabaseHeader header{};
  std::memcpy(header.magic, detail::database_magic, sizeof header.magic);
  header.alphabet_kind = detail::alphabet_kind_id(alphabet.kind);
  header.alphabet_size = static_cast<std::uint32_t>(alphabet.size);
  header.sequences = n;
  header.residues = set.residues.size();
  header.text_bytes = text_bytes;

  detail::TemporaryFile temporary(path + ".tmp");
  detail::FilePtr file(std::fopen(temporary.path().c_str(), "wb"));
  if (!file) throw InputError(format_error(temporary.path(), std::string("cannot create: ") + std::strerror(errno)));
  int write_error = 0;
  const auto write_array = [&](const void* data, std::size_t bytes) {
    if (write_error == 0 && bytes != 0 && std::fwrite(data, bytes, 1, file.get()) != 1) write_error = errno;
  };
  write_array(&header, sizeof header);
  write_array(set.offsets.data(), set.offsets.size() * sizeof(std::uint64_t));
  write_array(name_lengths.data(), n * sizeof(std::uint32_t));
  write_array(description_lengths.data(), n * sizeof(std::uint32_t));
  write_array(set.residues.data(), set.residues.size());
  for (std::size_t i = 0; i < n; ++i) {
    write_array(set.names[i].data(), set.names[i].size());
    write_array(set.descriptions[i].data(), set.descriptions[i].size());
  }
  // fclose flushes the stdio buffer: its failure (a full disk) is a failed write too.
  if (std::fclose(file.release()) != 0 && write_error == 0) write_error = errno;
  if (write_error != 0) {
    throw InputError(format_error(temporary.path(), std::string("cannot write: ") + std::strerror(write_error)));
  }
  if (std::rename(temporary.path().c_str(), path.c_str()) != 0) {
    throw InputError(
        format_error(path, std::string("cannot rename ") + temporary.path() + " to it: " + std::strerror(errno)));
  }
  temporary.release();
}

inline bool is_database_file(const std::string& path) {
  detail::FilePtr file(std::fopen(path.c_str(), "rb"));
  char magic[sizeof detail::database_magic];
  return file && std::fread(magic, sizeof magic, 1, file.get()) == 1 &&
         std::memcmp(magic, detail::database_magic, sizeof magic) == 0;
}

// Every count and offset is checked before it is used, so a corrupt or hostile file ends in an InputError, not in
// a huge allocation or an out-of-bounds read later in a kernel.
inline SequenceSet read_database(const std::string& path, const bio::Alphabet& expected) {
  const auto fail = [&](const std::string& message) { return InputError(format_error(path, message)); };

  detail::FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) throw fail(std::string("cannot open: ") + std::strerror(errno));
  std::error_code size_error;
  const std::uint64_t file_size = std::filesystem::file_size(path, size_error);
  if (size_error) throw fail("cannot determine the file size: " + size_error.message());

  detail::DatabaseHeader header{};
  if (file_size < sizeof header || std::fread(&header, sizeof header, 1, file.get()) != 1) {
    throw fail("too short to be a cudp database");
  }
  if (std::memcmp(header.magic, detail::database_magic, sizeof header.magic) != 0) {
    throw fail("not a cudp database (wrong magic number)");
  }
  const char* kind_name = detail::alphabet_kind_id_name(header.alphabet_kind);
  if (kind_name == nullptr)
    throw fail("corrupt database: unknown alphabet kind " + std::to_string(header.alphabet_kind));
  if (header.alphabet_kind != detail::alphabet_kind_id(expected.kind)) {
    throw fail(std::string("the database holds ") + kind_name + " sequences but " + expected.name + " was expected");
  }
  if (header.alphabet_size != static_cast<std::uint32_t>(expected.size)) {
    throw fail("the database uses " + std::to_string(header.alphabet_size) + " residue codes but the " + expected.name +
               " alphabet has " + std::to_string(expected.size));
  }

  // Each count is bounded by the file size before the sum is formed, so the sum cannot overflow.
  const std::uint64_t n = header.sequences;
  const bool counts_fit = n < file_size / 16 + 1 && header.residues <= file_size && header.text_bytes <= file_size;
  const std::uint64_t expected_size =
      counts_fit ? sizeof header + 8 * (n + 1) + 8 * n + header.residues + header.text_bytes : 0;
  if (!counts_fit || expected_size != file_size) {
    throw fail("truncated or corrupt database: the header describes " + std::to_string(n) + " sequences, " +
               std::to_string(header.residues) + " residues and " + std::to_string(header.text_bytes) +
               " bytes of names, which does not match the file size of " + std::to_string(file_size) + " bytes");
  }

  SequenceSet set;
  std::vector<std::uint32_t> name_lengths(n);
  std::vector<std::uint32_t> description_lengths(n);
  std::string text(header.text_bytes, '\0');
  set.offsets.resize(n + 1);
  set.residues.resize(header.residues);
  const auto read_array = [&](void* data, std::size_t bytes) {
    if (bytes != 0 && std::fread(data, bytes, 1, file.get()) != 1) throw fail("unexpected end of file");
  };
  read_array(set.offsets.data(), set.offsets.size() * sizeof(std::uint64_t));
  read_array(name_lengths.data(), n * sizeof(std::uint32_t));
  read_array(description_lengths.data(), n * sizeof(std::uint32_t));
  read_array(set.residues.data(), set.residues.size());
  read_array(text.data(), text.size());

  if (set.offsets.front() != 0 || set.offsets.back() != header.residues) {
    throw fail("corrupt database: sequence offsets do not span the residues");
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    if (set.offsets[i + 1] < set.offsets[i] || set.offsets[i + 1] - set.offsets[i] > SequenceSet::max_sequence_length) {
      throw fail("corrupt database: bad offset for sequence " + std::to_string(i));
    }
  }
  std::uint8_t largest_code = 0;
  for (const std::uint8_t code : set.residues) largest_code = std::max(largest_code, code);
  if (!set.residues.empty() && largest_code >= expected.size) {
    throw fail("corrupt database: residue code " + std::to_string(largest_code) + " is outside the " + expected.name +
               " alphabet");
  }

  set.names.reserve(n);
  set.descriptions.reserve(n);
  std::uint64_t text_pos = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (text.size() - text_pos < std::uint64_t{name_lengths[i]} + description_lengths[i]) {
      throw fail("corrupt database: header lengths exceed the header text");
    }
    set.names.emplace_back(text, text_pos, name_lengths[i]);
    text_pos += name_lengths[i];
    set.descriptions.emplace_back(text, text_pos, description_lengths[i]);
    text_pos += description_lengths[i];
  }
  if (text_pos != text.size()) throw fail("corrupt database: header lengths do not cover the header text");
  return set;
}

// A packed database when the file starts with the magic number, otherwise FASTA (plain or gzip).
inline SequenceSet load_sequences(const std::string& path, const bio::Alphabet& alphabet) {
  return is_database_file(path) ? read_database(path, alphabet) : read_fasta(path, alphabet);
}

}  // namespace cudp::io
