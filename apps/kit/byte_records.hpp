#pragma once
/// \file
/// Values as bytes, for the processes of an MPI run to hand their results to the first (MpiWorld::gather): numbers
/// travel as their bytes, so that a merged report's floats are the computing process's to the last bit.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace cudp::apps {

/// Appends values to a string.
class ByteWriter {
 public:
  /// Appends to `out`.
  explicit ByteWriter(std::string& out) : out_(out) {}
  /// \name Writing
  //@{
  /// A trivially copyable value as its bytes; a string as its length, then its bytes.
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put(const std::string& text) {
    put(static_cast<std::uint64_t>(text.size()));
    out_ += text;
  }
  //@}

 private:
  std::string& out_;
};

/// Reads back what a ByteWriter wrote, in the same order; a string cut short is an internal error.
class ByteReader {
 public:
  /// Reads `in` from its start.
  explicit ByteReader(const std::string& in) : in_(in) {}
  /// \name Reading
  //@{
  /// The next value, as put() wrote it.
  template <class T>
  void get(T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    take(sizeof value);
    std::memcpy(&value, in_.data() + at_, sizeof value);
    at_ += sizeof value;
  }
  void get(std::string& text) {
    std::uint64_t size = 0;
    get(size);
    take(size);
    text.assign(in_, at_, size);
    at_ += size;
  }
  //@}
  /// Whether every byte has been read.
  bool done() const { return at_ == in_.size(); }

 private:
  void take(std::uint64_t bytes) const {
    if (in_.size() - at_ < bytes) throw std::runtime_error("internal error: a process's results arrived cut short");
  }
  const std::string& in_;
  std::size_t at_ = 0;
};

}  // namespace cudp::apps
