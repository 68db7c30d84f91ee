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
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "../bio/alphabet.hpp"
#include "error.hpp"
#include "fasta.hpp"
#include "output_files.hpp"
#include "sequence_set.hpp"
#include "shards.hpp"
#include "../host/host_cores.hpp"

// The arrays go to and from disk with a single fwrite/fread each, which is only the documented format on a
// little-endian host.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "cudp database files are read and written in host byte order, which must be little-endian"
#endif

namespace cudp::io {

// The first bytes of every packed database file (write_database's, cudp-makedb's): what tells one from FASTA.
inline constexpr std::size_t kDatabaseMagicBytes = 8;
inline constexpr std::string_view database_magic() { return {"CUDPDB01", kDatabaseMagicBytes}; }

// True when `bytes` (the start of an input, or all of it) begin as a packed database file does; false for FASTA,
// and for fewer than 8 bytes.
inline constexpr bool looks_like_database(std::string_view bytes) {
  return bytes.substr(0, database_magic().size()) == database_magic();
}

namespace detail {

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
  std::memcpy(header.magic, database_magic().data(), sizeof header.magic);
  header.alphabet_kind = detail::alphabet_kind_id(alphabet.kind);
  header.alphabet_size = static_cast<std::uint32_t>(alphabet.size);
  header.sequences = n;
  header.residues = set.residues.size();
  header.text_bytes = text_bytes;

  // A stream (a pipe, /dev/stdout) is written in place: there is no file to rename over it. A name of a descriptor
  // already open is written through that descriptor, as output_files.hpp explains.
  const bool stream = is_output_stream(path);
  const int descriptor = stream ? detail::descriptor_named(path) : -1;
  detail::TemporaryFile temporary(stream ? std::string() : path + ".tmp");
  const std::string& where = stream ? path : temporary.path();
  detail::FilePtr file(descriptor >= 0 ? fdopen(dup(descriptor), "wb") : std::fopen(where.c_str(), "wb"));
  if (!file) throw InputError(format_error(where, std::string("cannot create: ") + std::strerror(errno)));
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
    throw InputError(format_error(where, std::string("cannot write: ") + std::strerror(write_error)));
  }
  if (stream) return;
  if (std::rename(temporary.path().c_str(), path.c_str()) != 0) {
    throw InputError(
        format_error(path, std::string("cannot rename ") + temporary.path() + " to it: " + std::strerror(errno)));
  }
  temporary.release();
}

// Opens path to look at its first bytes: for regular files only, as a pipe would lose them (SequenceInput keeps them).
inline bool is_database_file(const std::string& path) {
  detail::FilePtr file(std::fopen(path.c_str(), "rb"));
  char magic[kDatabaseMagicBytes];  // an array bound nvcc takes (not a call)
  return file && std::fread(magic, sizeof magic, 1, file.get()) == 1 &&
         looks_like_database(std::string_view(magic, sizeof magic));
}

// How read_database works: `threads` readers (0: all hardware threads) each read, check and recode one part of the
// residue array; `recode`, when given, maps every stored code to the code returned (another alphabet's numbering,
// say), in the same pass.
// With `shards` above 1, only shard `shard` of the database is read (io/shards.hpp: the sequences, residues and
// names of that contiguous part, from the file's index); `part`, when given, then says where it lies in the whole.
struct DatabaseReadOptions {
  int threads = 1;
  const std::array<std::uint8_t, 256>* recode = nullptr;
  int shard = 0, shards = 1;
  DatabasePart* part = nullptr;
};

namespace detail {

// body(begin, end) over [0, n) cut into contiguous parts of at least `least` items, at most `threads` of them,
// one thread each.
template <class Body>
void split_among_threads(std::uint64_t n, std::uint64_t least, int threads, Body body) {
  if (threads <= 0) threads = cudp::host::usable_cores();
  const std::uint64_t parts =
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(static_cast<std::uint64_t>(threads), n / least));
  std::vector<std::thread> pool;
  for (std::uint64_t p = 1; p < parts; ++p) pool.emplace_back(body, n * p / parts, n * (p + 1) / parts);
  body(std::uint64_t{0}, n / parts);
  for (auto& thread : pool) thread.join();
}

}  // namespace detail

namespace detail {

// The reader proper, on a file open at its start (a regular file or a spooled copy of a stream); path names it in
// messages. Every count and offset is checked before it is used, so a corrupt or hostile file ends in an
// InputError, not in a huge allocation or an out-of-bounds read later in a kernel.
inline SequenceSet read_database_file(std::FILE* opened, const std::string& path, const bio::Alphabet& expected,
                                      const DatabaseReadOptions& options) {
  const auto fail = [&](const std::string& message) { return InputError(format_error(path, message)); };
  struct stat status {};
  if (fstat(fileno(opened), &status) != 0)
    throw fail(std::string("cannot determine the file size: ") + std::strerror(errno));
  const std::uint64_t file_size = static_cast<std::uint64_t>(status.st_size);

  detail::DatabaseHeader header{};
  if (file_size < sizeof header || std::fread(&header, sizeof header, 1, opened) != 1) {
    throw fail("too short to be a cudp database");
  }
  if (!looks_like_database(std::string_view(header.magic, sizeof header.magic))) {
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
  set.offsets.resize(n + 1);
  const auto read_array = [&](void* data, std::size_t bytes) {
    if (bytes != 0 && std::fread(data, bytes, 1, opened) != 1) throw fail("unexpected end of file");
  };
  read_array(set.offsets.data(), set.offsets.size() * sizeof(std::uint64_t));
  read_array(name_lengths.data(), n * sizeof(std::uint32_t));
  read_array(description_lengths.data(), n * sizeof(std::uint32_t));
  if (set.offsets.front() != 0 || set.offsets.back() != header.residues) {
    throw fail("corrupt database: sequence offsets do not span the residues");
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    if (set.offsets[i + 1] < set.offsets[i] || set.offsets[i + 1] - set.offsets[i] > SequenceSet::max_sequence_length) {
      throw fail("corrupt database: bad offset for sequence " + std::to_string(i));
    }
  }
  std::vector<std::uint64_t> text_starts(n + 1, 0);  // where each name begins in the header text
  for (std::uint64_t i = 0; i < n; ++i) text_starts[i + 1] = text_starts[i] + name_lengths[i] + description_lengths[i];
  if (text_starts[n] > header.text_bytes) throw fail("corrupt database: header lengths exceed the header text");
  if (text_starts[n] < header.text_bytes) throw fail("corrupt database: header lengths do not cover the header text");

  // The shard asked for (the whole file by default): its sequences, rebased to start at 0.
  const std::uint64_t residues_at = sizeof header + 8 * (n + 1) + 8 * n;
  const std::uint64_t text_at = residues_at + header.residues;
  const auto bounds = shard_bounds(set.offsets, options.shard, options.shards);
  const std::size_t first = bounds.first, last = bounds.second;  // named, so that the lambdas below may capture them
  if (options.part != nullptr) *options.part = DatabasePart{first, n, header.residues};
  const std::uint64_t residue_base = set.offsets[first], residue_count = set.offsets[last] - residue_base;
  const std::uint64_t text_base = text_starts[first], text_count = text_starts[last] - text_base;
  set.offsets.erase(set.offsets.begin() + static_cast<std::ptrdiff_t>(last) + 1, set.offsets.end());
  set.offsets.erase(set.offsets.begin(), set.offsets.begin() + static_cast<std::ptrdiff_t>(first));
  for (std::uint64_t& offset : set.offsets) offset -= residue_base;

  // The residues: each thread reads its part with pread (no shared file position), checks it and recodes it while
  // it is still in cache.
  const int fd = fileno(opened);
  set.residues.resize(residue_count);
  std::vector<std::uint8_t> part_largest;
  std::mutex part_mutex;
  bool read_failed = false;
  detail::split_among_threads(residue_count, 1 << 20, options.threads, [&](std::uint64_t begin, std::uint64_t end) {
    std::uint8_t* out = set.residues.data();
    for (std::uint64_t at = begin; at < end;) {
      const ssize_t got = pread(fd, out + at, static_cast<std::size_t>(std::min<std::uint64_t>(end - at, 1u << 30)),
                                static_cast<off_t>(residues_at + residue_base + at));
      if (got <= 0) {
        std::lock_guard<std::mutex> lock(part_mutex);
        read_failed = true;
        return;
      }
      at += static_cast<std::uint64_t>(got);
    }
    std::uint8_t largest = 0;
    for (std::uint64_t i = begin; i < end; ++i) largest = std::max(largest, out[i]);
    if (options.recode != nullptr) {
      const std::uint8_t* table = options.recode->data();
      for (std::uint64_t i = begin; i < end; ++i) out[i] = table[out[i]];
    }
    std::lock_guard<std::mutex> lock(part_mutex);
    part_largest.push_back(largest);
  });
  if (read_failed) throw fail("unexpected end of file");
  const std::uint8_t largest_code =
      part_largest.empty() ? 0 : *std::max_element(part_largest.begin(), part_largest.end());
  if (residue_count != 0 && largest_code >= expected.size) {
    throw fail("corrupt database: residue code " + std::to_string(largest_code) + " is outside the " + expected.name +
               " alphabet");
  }

  std::string text(text_count, '\0');
  if (text_count != 0 && pread(fd, text.data(), text.size(), static_cast<off_t>(text_at + text_base)) !=
                             static_cast<ssize_t>(text.size())) {
    throw fail("unexpected end of file");
  }
  set.names.resize(last - first);
  set.descriptions.resize(last - first);
  detail::split_among_threads(last - first, 1 << 14, options.threads, [&](std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t i = begin; i < end; ++i) {
      const std::uint64_t at = text_starts[first + i] - text_base;
      set.names[i].assign(text, at, name_lengths[first + i]);
      set.descriptions[i].assign(text, at + name_lengths[first + i], description_lengths[first + i]);
    }
  });
  return set;
}

// An unnamed temporary file (in TMPDIR, else /tmp) holding the bytes of a stream: the reader above needs the size
// first and reads parts of the file on several threads, which a pipe cannot give.
inline FilePtr spool_to_temporary(ChunkSource& source, const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/cudp-spool-XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd < 0) {
    throw InputError(format_error(name, "cannot create a temporary file in " + pattern.substr(0, pattern.rfind('/')) +
                                            ": " + std::strerror(errno)));
  }
  unlink(pattern.c_str());  // gone when closed, whatever happens
  FilePtr file(fdopen(fd, "w+b"));
  if (!file) {
    close(fd);
    throw InputError(format_error(name, std::string("cannot open a temporary file: ") + std::strerror(errno)));
  }
  const char* data = nullptr;
  for (std::size_t n; (n = source.read(data)) != 0;) {
    if (std::fwrite(data, 1, n, file.get()) != n)
      throw InputError(format_error(name, std::string("cannot copy to a temporary file: ") + std::strerror(errno)));
  }
  if (std::fflush(file.get()) != 0)
    throw InputError(format_error(name, std::string("cannot copy to a temporary file: ") + std::strerror(errno)));
  std::rewind(file.get());
  return file;
}

}  // namespace detail

inline SequenceSet read_database(const std::string& path, const bio::Alphabet& expected,
                                 const DatabaseReadOptions& options = {}) {
  detail::FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) throw InputError(format_error(path, std::string("cannot open: ") + std::strerror(errno)));
  return detail::read_database_file(file.get(), path, expected, options);
}

// A sequence input opened once, whose first bytes tell a packed database from FASTA. Pipes, FIFOs and process
// substitutions are read once from start to end, like regular files: FASTA is parsed as it streams in; a packed
// database from a stream (or compressed) is copied to an unnamed temporary file first.
class SequenceInput {
 public:
  // name stands for the input in messages; the path by default.
  explicit SequenceInput(const std::string& path, const std::string& name = {})
      : path_(path), name_(name.empty() ? path : name), regular_(is_regular_file(path)) {
    auto file = std::make_unique<GzipFileSource>(path, name_);
    compressed_ = file->compressed();
    source_ = std::make_unique<PeekedSource>(std::move(file));
  }

  const std::string& path() const { return path_; }
  // Whether the bytes are gzip-compressed (read through zlib).
  bool compressed() const { return compressed_; }
  bool is_database() {
    return looks_like_database(source_->peek(database_magic().size()));
  }
  // The alphabet kind in a packed database's header (0 protein, 1 DNA), before the database is read.
  std::uint32_t database_kind() {
    const std::string_view head = source_->peek(sizeof(detail::DatabaseHeader));
    if (head.size() < sizeof(detail::DatabaseHeader))
      throw InputError(format_error(name_, "too short to be a cudp database"));
    std::uint32_t kind = 0;
    std::memcpy(&kind, head.data() + offsetof(detail::DatabaseHeader, alphabet_kind), sizeof kind);
    return kind;
  }

  // Each reads the input once; call one of them once.
  SequenceSet read_database(const bio::Alphabet& expected, const DatabaseReadOptions& options = {}) {
    if (regular_ && !compressed_) {  // opened again, to be read by parts on threads
      detail::FilePtr file(std::fopen(path_.c_str(), "rb"));
      if (!file) throw InputError(format_error(name_, std::string("cannot open: ") + std::strerror(errno)));
      return detail::read_database_file(file.get(), name_, expected, options);
    }
    const detail::FilePtr copy = detail::spool_to_temporary(*source_, name_);
    return detail::read_database_file(copy.get(), name_, expected, options);
  }
  SequenceSet read_fasta(const bio::Alphabet& alphabet, FastaHeaders headers = FastaHeaders::trimmed) {
    return io::read_fasta(std::move(source_), name_, alphabet, headers);
  }

 private:
  std::string path_;
  std::string name_;
  bool regular_ = false;
  bool compressed_ = false;
  std::unique_ptr<PeekedSource> source_;
};

// A packed database (read with `options`) when the input starts with the magic number, otherwise FASTA (plain or
// gzip, read whole and then cut to the shard that `options` asks for), reading the input once. `name` stands for
// the input in messages (the path by default).
inline SequenceSet load_sequences(const std::string& path, const bio::Alphabet& alphabet,
                                  const DatabaseReadOptions& options = {}, const std::string& name = {}) {
  SequenceInput input(path, name);
  if (input.is_database()) return input.read_database(alphabet, options);
  return take_shard(input.read_fasta(alphabet), options.shard, options.shards, options.part);
}

}  // namespace cudp::io
