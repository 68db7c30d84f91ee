#pragma once
// Streaming FASTA reader for plain and gzip-compressed files.
//
// Rules: a record is a header line '>' NAME [DESCRIPTION] followed by sequence lines. Sequence lines may have any
// length, contain spaces or tabs, and end in \n or \r\n; blank lines are allowed anywhere; the last line needs no
// newline. Every residue must be a letter of the alphabet (protein sequences may end with the stop code '*', which
// the alphabet keeps as a residue). Anything else is an InputError naming the file, line and, for bad characters,
// the column.
//
// FastaHeaders::easel splits header lines as HMMER's Easel library does, for programs that must reproduce HMMER's
// output: spaces and tabs may come between '>' and the name; the name ends at any whitespace; only spaces and tabs
// are skipped after it, so a \v or \f there starts the description; the description keeps its trailing blanks and
// ends at a carriage return. Easel would read text after a carriage return inside a header as sequence; that is
// refused here instead.
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "../bio/alphabet.hpp"
#include "error.hpp"
#include "sequence_set.hpp"

namespace cudp::io {

// How a header line is split into name and description (see the file comment).
enum class FastaHeaders { trimmed, easel };

struct FastaRecord {
  std::string name;
  std::string description;
  std::vector<std::uint8_t> codes;
  std::uint64_t line = 0;  // line of the header
};

// Where a reader's bytes come from (FastaReader, read_fasta, SequenceInput; hmmer's model files): an input handed
// out chunk by chunk, read once from start to end. The library's sources are a file, plain or gzip-compressed
// (GzipFileSource), a buffer already in memory (MemorySource) and a source whose first bytes can be looked at before
// it is read (PeekedSource); derive from it to read from elsewhere.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  // Points data at the next chunk and returns its size; 0 at the end of the input.
  virtual std::size_t read(const char*& data) = 0;
  // The input size when it is known cheaply (0 otherwise): an upper bound on the residues, to reserve memory once.
  virtual std::uint64_t size_hint() const = 0;
};

// Bytes already in memory, handed out as one chunk; they must outlive the source.
class MemorySource final : public ChunkSource {
 public:
  MemorySource(const char* data, std::size_t size) : data_(data), size_(size) {}
  std::size_t read(const char*& data) override {
    data = data_;
    return std::exchange(unread_, false) ? size_ : 0;
  }
  std::uint64_t size_hint() const override { return size_; }

 private:
  const char* data_;
  std::size_t size_;
  bool unread_ = true;
};

// A file, plain or gzip-compressed, opened on construction (an InputError naming it when it cannot be). zlib reads
// plain files transparently, so one source serves both. Large chunks keep the per-call overhead of
// gzread out of the profile; for chunks at least as large as zlib's buffer, zlib reads or inflates straight into
// ours without an extra copy.
class GzipFileSource final : public ChunkSource {
 public:
  static constexpr unsigned zlib_buffer_bytes = 1u << 20;
  static constexpr std::size_t chunk_bytes = std::size_t{4} << 20;

  // name stands for the input in messages ("standard input" for /dev/stdin, say); the path by default.
  explicit GzipFileSource(const std::string& path, const std::string& name = {})
      : path_(path), name_(name.empty() ? path : name) {
    errno = 0;
    file_ = gzopen(path.c_str(), "rb");
    if (file_ == nullptr) {
      throw InputError(
          format_error(name_, std::string("cannot open: ") + (errno != 0 ? std::strerror(errno) : "out of memory")));
    }
    gzbuffer(file_, zlib_buffer_bytes);
    buffer_.reset(new char[chunk_bytes]);
    std::error_code error;
    if (gzdirect(file_) == 1) size_hint_ = std::filesystem::file_size(path, error);
    if (error) size_hint_ = 0;
  }
  GzipFileSource(const GzipFileSource&) = delete;
  GzipFileSource& operator=(const GzipFileSource&) = delete;
  ~GzipFileSource() override { gzclose(file_); }

  std::size_t read(const char*& data) override {
    const int n = gzread(file_, buffer_.get(), static_cast<unsigned>(chunk_bytes));
    // A truncated stream is not an error to gzread (the file might still be growing): it returns what it could
    // inflate and records Z_BUF_ERROR, so the error state must be checked after every read, not only on -1.
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (n < 0 || code != Z_OK) throw InputError(format_error(name_, describe_zlib_error(code, message)));
    data = buffer_.get();
    return static_cast<std::size_t>(n);
  }
  std::uint64_t size_hint() const override { return size_hint_; }
  // False for a plain file, read as it is.
  bool compressed() const { return gzdirect(file_) == 0; }

 private:
  std::string describe_zlib_error(int code, const char* message) const {
    // zlib prefixes its messages with the path it was given; ours already carries it.
    std::string_view text = message != nullptr ? message : "";
    const std::string prefix = path_ + ": ";
    if (text.substr(0, prefix.size()) == prefix) text.remove_prefix(prefix.size());
    switch (code) {
      case Z_BUF_ERROR:
        return "truncated gzip stream (" + std::string(text) + ")";
      case Z_DATA_ERROR:
        return "corrupt gzip stream: " + std::string(text);
      default:
        return "cannot read: " + std::string(text);
    }
  }

  std::string path_;
  std::string name_;
  gzFile file_ = nullptr;
  std::uint64_t size_hint_ = 0;
  std::unique_ptr<char[]> buffer_;
};

// Lets a reader look at the first bytes of an input, to tell formats apart, and then read it from the start: a
// pipe can be opened and read only once, so its first bytes are kept and handed out again before the rest.
class PeekedSource final : public ChunkSource {
 public:
  explicit PeekedSource(std::unique_ptr<ChunkSource> source) : source_(std::move(source)) {}

  // Up to `bytes` first bytes of the input (fewer only when the input is shorter).
  std::string_view peek(std::size_t bytes) {
    while (head_.size() < bytes && !ended_) {
      const char* data = nullptr;
      const std::size_t n = source_->read(data);
      if (n == 0) {
        ended_ = true;
        break;
      }
      head_.append(data, n);
    }
    return std::string_view(head_).substr(0, bytes);
  }
  std::size_t read(const char*& data) override {
    if (!head_given_) {
      head_given_ = true;
      if (!head_.empty()) {
        data = head_.data();
        return head_.size();
      }
    }
    if (ended_) return 0;
    const std::size_t n = source_->read(data);
    ended_ = n == 0;
    return n;
  }
  std::uint64_t size_hint() const override { return source_->size_hint(); }

 private:
  std::unique_ptr<ChunkSource> source_;
  std::string head_;
  bool head_given_ = false;
  bool ended_ = false;
};

namespace detail {

// The parser proper. It never looks at a whole line of sequence: it translates everything up to the next '>' that
// starts a line (or the end of the chunk) in one pass through a byte table, so line length does not matter and a
// newline is handled like any other byte. Line numbers are counted in that same pass; columns are worked out only
// when an error needs one.
class FastaScanner {
 public:
  FastaScanner(std::unique_ptr<ChunkSource> source, std::string source_name, const bio::Alphabet& alphabet,
               FastaHeaders headers = FastaHeaders::trimmed)
      : source_(std::move(source)), source_name_(std::move(source_name)), alphabet_(alphabet), headers_(headers) {
    for (std::size_t byte = 0; byte < byte_class_.size(); ++byte) {
      const int code = alphabet.encode(static_cast<char>(byte));
      if (code >= 0) {
        byte_class_[byte] = static_cast<std::uint8_t>(code);
      } else if (byte == '\n') {
        byte_class_[byte] = newline_class;
      } else if (byte == ' ' || byte == '\t' || byte == '\r' || byte == '\v' || byte == '\f') {
        byte_class_[byte] = space_class;
      } else {
        byte_class_[byte] = invalid_class;
      }
    }
  }

  std::uint64_t size_hint() const { return source_->size_hint(); }

  // Reads the next record: its header into name, description and line, its residues appended to codes.
  // Returns false at the end of the input.
  template <class Codes>
  bool next(std::string& name, std::string& description, std::uint64_t& line, Codes& codes) {
    if (records_ == 0) skip_blank_lines();
    if (!fill()) {
      if (records_ == 0) throw InputError(format_error(source_name_, "no sequences found"));
      return false;
    }
    line = line_;
    read_header(name, description, line);
    const std::size_t first = codes.size();
    read_residues(codes, name);
    const std::size_t length = codes.size() - first;
    if (length == 0) throw InputError(format_error(source_name_, line, "sequence '" + name + "' is empty"));
    if (length > SequenceSet::max_sequence_length) {
      throw InputError(format_error(source_name_, line,
                                    "sequence '" + name + "' has " + std::to_string(length) +
                                        " residues; the limit is " + std::to_string(SequenceSet::max_sequence_length)));
    }
    ++records_;
    return true;
  }

 private:
  static constexpr std::uint8_t newline_class = 0xfd;
  static constexpr std::uint8_t space_class = 0xfe;
  static constexpr std::uint8_t invalid_class = 0xff;

  // Makes sure pos_ has a byte to look at; false at the end of the input.
  bool fill() {
    if (pos_ != end_) return true;
    if (exhausted_) return false;
    chunk_offset_ += static_cast<std::uint64_t>(end_ - chunk_);
    const std::size_t n = source_->read(chunk_);
    pos_ = chunk_;
    end_ = chunk_ + n;
    exhausted_ = n == 0;
    return n != 0;
  }

  std::uint64_t offset_of(const char* p) const { return chunk_offset_ + static_cast<std::uint64_t>(p - chunk_); }

  void start_line(const char* after_newline) {
    ++line_;
    line_start_ = offset_of(after_newline);
    at_line_start_ = true;
  }

  // Before the first record only whitespace may appear.
  void skip_blank_lines() {
    while (fill()) {
      if (at_line_start_ && *pos_ == '>') return;
      at_line_start_ = false;
      for (; pos_ != end_; ++pos_) {
        if (*pos_ == '\n') {
          start_line(++pos_);
          break;
        }
        if (byte_class_[static_cast<unsigned char>(*pos_)] != space_class) {
          throw InputError(format_error(source_name_, line_, "expected '>' at the start of a FASTA record"));
        }
      }
    }
  }

  // Consumes the header line, whose '>' is at pos_.
  void read_header(std::string& name, std::string& description, std::uint64_t line) {
    header_.clear();
    ++pos_;
    at_line_start_ = false;
    while (fill()) {
      const auto* newline = static_cast<const char*>(std::memchr(pos_, '\n', static_cast<std::size_t>(end_ - pos_)));
      const char* stop = newline != nullptr ? newline : end_;
      header_.append(pos_, stop);
      pos_ = stop;
      if (newline != nullptr) {
        start_line(++pos_);
        break;
      }
    }
    if (headers_ == FastaHeaders::easel) {
      split_header_as_easel(name, description, line);
      return;
    }
    constexpr const char* spaces = " \t\r\v\f";
    const std::size_t name_end = std::min(header_.find_first_of(spaces), header_.size());
    if (name_end == 0) {
      throw InputError(
          format_error(source_name_, line, "sequence header has no name: '>' must be followed directly by the name"));
    }
    name.assign(header_, 0, name_end);
    const std::size_t text_begin = header_.find_first_not_of(spaces, name_end);
    if (text_begin == std::string::npos) {
      description.clear();
    } else {
      description.assign(header_, text_begin, header_.find_last_not_of(spaces) + 1 - text_begin);
    }
  }

  void split_header_as_easel(std::string& name, std::string& description, std::uint64_t line) const {
    constexpr const char* blanks = " \t";
    const std::size_t cr = header_.find('\r');
    if (cr != std::string::npos && header_.find_first_not_of('\r', cr) != std::string::npos) {
      throw InputError(format_error(source_name_, line,
                                    "carriage return inside a sequence header, with more text after it"));
    }
    const std::string_view text = std::string_view(header_).substr(0, cr);
    const std::size_t name_begin = std::min(text.find_first_not_of(blanks), text.size());
    const std::size_t name_end = std::min(text.find_first_of(" \t\v\f", name_begin), text.size());
    if (name_end == name_begin) {
      throw InputError(format_error(source_name_, line, "sequence header has no name"));
    }
    name.assign(text.substr(name_begin, name_end - name_begin));
    const std::size_t text_begin = std::min(text.find_first_not_of(blanks, name_end), text.size());
    description.assign(text.substr(text_begin));
  }

  // Appends the codes of the sequence lines up to the next header or the end of the input.
  template <class Codes>
  void read_residues(Codes& codes, const std::string& name) {
    while (fill()) {
      if (at_line_start_ && *pos_ == '>') return;
      const char* stop = next_header(pos_ + 1);
      translate(pos_, stop, codes, name);
      at_line_start_ = stop[-1] == '\n';
      pos_ = stop;
    }
  }

  // The first '>' in [from, end_) that starts a line, or end_.
  const char* next_header(const char* from) const {
    while (from < end_) {
      const auto* mark = static_cast<const char*>(std::memchr(from, '>', static_cast<std::size_t>(end_ - from)));
      if (mark == nullptr) return end_;
      if (mark[-1] == '\n') return mark;
      from = mark + 1;
    }
    return end_;
  }

  // Blocks of eight bytes that are all residues, the common case, are stored with one 8-byte write; a block with a
  // newline, space or bad byte takes the byte-by-byte path. This cut the parse time of a 60-column protein file
  // by about a third.
  template <class Codes>
  void translate(const char* begin, const char* end, Codes& codes, const std::string& name) {
    const std::size_t first = codes.size();
    codes.resize(first + static_cast<std::size_t>(end - begin));
    const std::uint8_t* table = byte_class_.data();
    std::uint8_t* out = codes.data() + first;
    std::uint64_t newlines = 0;
    bool invalid = false;
    const auto translate_byte = [&](unsigned char byte) {
      const std::uint8_t cls = table[byte];
      *out = cls;
      out += cls < 0x80;
      newlines += cls == newline_class;
      invalid |= cls == invalid_class;
    };
    const auto* c = reinterpret_cast<const unsigned char*>(begin);
    const auto* stop = reinterpret_cast<const unsigned char*>(end);
    constexpr int block = 8;
    for (; stop - c >= block; c += block) {
      std::uint8_t classes[block];
      std::uint8_t any_special = 0;
      for (int k = 0; k < block; ++k) {
        classes[k] = table[c[k]];
        any_special |= classes[k];
      }
      if ((any_special & 0x80) == 0) {
        std::memcpy(out, classes, block);
        out += block;
      } else {
        for (int k = 0; k < block; ++k) translate_byte(c[k]);
      }
    }
    for (; c != stop; ++c) translate_byte(*c);
    codes.resize(static_cast<std::size_t>(out - codes.data()));
    if (invalid) throw_invalid_residue(begin, end, name);
    if (newlines != 0) {
      const char* last_newline = end - 1;
      while (*last_newline != '\n') --last_newline;
      line_ += newlines;
      line_start_ = offset_of(last_newline + 1);
    }
  }

  [[noreturn]] void throw_invalid_residue(const char* begin, const char* end, const std::string& name) const {
    std::uint64_t line = line_;
    std::uint64_t line_start = line_start_;
    const char* c = begin;
    for (; c != end && byte_class_[static_cast<unsigned char>(*c)] != invalid_class; ++c) {
      if (*c == '\n') {
        ++line;
        line_start = offset_of(c + 1);
      }
    }
    throw InputError(format_error(
        source_name_, line, offset_of(c) - line_start + 1,
        "invalid residue " + quote_byte(*c) + " in sequence '" + name + "' (not a " + alphabet_.name + " letter)"));
  }

  std::unique_ptr<ChunkSource> source_;
  std::string source_name_;
  const bio::Alphabet& alphabet_;
  FastaHeaders headers_;
  std::array<std::uint8_t, 256> byte_class_{};

  const char* chunk_ = nullptr;
  const char* pos_ = nullptr;
  const char* end_ = nullptr;
  std::uint64_t chunk_offset_ = 0;  // offset in the input of chunk_
  bool exhausted_ = false;

  std::uint64_t line_ = 1;
  std::uint64_t line_start_ = 0;  // offset in the input where line_ begins
  bool at_line_start_ = true;
  std::uint64_t records_ = 0;
  std::string header_;
};

}  // namespace detail

// Reads one record at a time, for inputs that need not fit in memory.
class FastaReader {
 public:
  FastaReader(const std::string& path, const bio::Alphabet& alphabet)
      : scanner_(std::make_unique<GzipFileSource>(path), path, alphabet) {}
  // Bytes from another source (text in memory, a pipe already opened); source_name stands for it in messages.
  FastaReader(std::unique_ptr<ChunkSource> source, const std::string& source_name,
              const bio::Alphabet& alphabet)
      : scanner_(std::move(source), source_name, alphabet) {}

  // Fills out with the next record; false at the end of the file.
  bool next(FastaRecord& out) {
    out.codes.clear();
    return scanner_.next(out.name, out.description, out.line, out.codes);
  }

 private:
  detail::FastaScanner scanner_;
};

namespace detail {

// Residues go straight into the set's buffer: no per-record vector and no copy.
inline SequenceSet read_all(FastaScanner& scanner) {
  SequenceSet set;
  // Growing the buffer by doubling would copy it and fault in its pages about twice; unused reserved pages are
  // never touched, so reserving the whole input costs address space only.
  set.residues.reserve(static_cast<std::size_t>(scanner.size_hint()));
  std::string name;
  std::string description;
  std::uint64_t line = 0;
  while (scanner.next(name, description, line, set.residues)) {
    set.offsets.push_back(set.residues.size());
    set.names.push_back(std::move(name));
    set.descriptions.push_back(std::move(description));
  }
  return set;
}

}  // namespace detail

// True when path names a regular file (after links), one that can be opened again and read from the start; false
// for pipes, FIFOs, process substitutions (/dev/fd/N), character devices and missing files.
inline bool is_regular_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

// Reads a whole FASTA file, plain or gzip-compressed.
inline SequenceSet read_fasta(const std::string& path, const bio::Alphabet& alphabet,
                              FastaHeaders headers = FastaHeaders::trimmed) {
  detail::FastaScanner scanner(std::make_unique<GzipFileSource>(path), path, alphabet, headers);
  return detail::read_all(scanner);
}

// Parses FASTA text already in memory, by the same rules; source_name stands in for the path in error messages.
inline SequenceSet parse_fasta(const char* data, std::size_t size, const std::string& source_name,
                               const bio::Alphabet& alphabet, FastaHeaders headers = FastaHeaders::trimmed) {
  detail::FastaScanner scanner(std::make_unique<MemorySource>(data, size), source_name, alphabet, headers);
  return detail::read_all(scanner);
}

// The same from a source already opened (PeekedSource, say).
inline SequenceSet read_fasta(std::unique_ptr<ChunkSource> source, const std::string& source_name,
                              const bio::Alphabet& alphabet, FastaHeaders headers = FastaHeaders::trimmed) {
  detail::FastaScanner scanner(std::move(source), source_name, alphabet, headers);
  return detail::read_all(scanner);
}

// Everything left on an open stream (standard input, say); `name` stands for it in the error message.
inline std::string read_stream_text(std::FILE* stream, const std::string& name) {
  std::string text;
  char buf[1 << 16];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, stream)) > 0;) text.append(buf, n);
  if (std::ferror(stream)) throw InputError(name + ": read error");
  return text;
}

// A whole file in memory, inflated when it is gzip-compressed: for text passed on whole (to another process, say).
// name stands for the file in messages; the path by default.
inline std::string read_file_text(const std::string& path, const std::string& name = {}) {
  GzipFileSource source(path, name);
  std::string text;
  const char* chunk = nullptr;
  for (std::size_t n; (n = source.read(chunk)) > 0;) text.append(chunk, n);
  return text;
}

}  // namespace cudp::io
