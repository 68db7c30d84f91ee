// Inputs and outputs that are streams (issue 15): pipes, FIFOs and /dev/fd/N names read once from start to end give
// what the same bytes in a regular file give, with messages naming the stream and line; streams among the outputs
// are written in place and in order, regular files still all or nothing.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../support/same_sequences.hpp"
#include "../support/temp_dir.hpp"
#include "cudp/io/database_file.hpp"
#include "cudp/io/fasta.hpp"
#include "cudp/io/output_files.hpp"

using cudp::io::InputError;
using cudp::io::SequenceSet;
using cudp::test::require_same;
using cudp::test::file_bytes;
using cudp::test::TempDir;

namespace {

void write_all(int fd, const std::string& bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) return;  // the reader gave up (EPIPE, SIGPIPE ignored below)
    done += static_cast<std::size_t>(n);
  }
}

// A pipe whose read end is named /dev/fd/N, as bash's <(...) names it; a thread writes the bytes and closes.
class InputPipe {
 public:
  explicit InputPipe(std::string bytes) {
    std::signal(SIGPIPE, SIG_IGN);
    REQUIRE(pipe(fds_) == 0);
    writer_ = std::thread([this, bytes = std::move(bytes)] {
      write_all(fds_[1], bytes);
      close(fds_[1]);
    });
  }
  InputPipe(const InputPipe&) = delete;
  InputPipe& operator=(const InputPipe&) = delete;
  ~InputPipe() {
    // Closed before the join: a writer blocked on a full pipe then fails instead of waiting for ever.
    close(fds_[0]);
    writer_.join();
  }
  std::string path() const { return "/dev/fd/" + std::to_string(fds_[0]); }

 private:
  int fds_[2] = {-1, -1};
  std::thread writer_;
};

// A pipe whose write end is named /dev/fd/N; a thread collects what is written until the end is closed.
class OutputPipe {
 public:
  OutputPipe() {
    REQUIRE(pipe(fds_) == 0);
    reader_ = std::thread([this] {
      char buffer[4096];
      for (ssize_t n; (n = ::read(fds_[0], buffer, sizeof buffer)) > 0;)
        text_.append(buffer, static_cast<std::size_t>(n));
      close(fds_[0]);
    });
  }
  OutputPipe(const OutputPipe&) = delete;
  OutputPipe& operator=(const OutputPipe&) = delete;
  ~OutputPipe() { finish(); }
  std::string path() const { return "/dev/fd/" + std::to_string(fds_[1]); }
  // Everything written, once the write end is closed.
  const std::string& finish() {
    if (reader_.joinable()) {
      close(fds_[1]);
      reader_.join();
    }
    return text_;
  }

 private:
  int fds_[2] = {-1, -1};
  std::thread reader_;
  std::string text_;
};

std::string gzip(const std::string& text) {
  uLongf size = compressBound(static_cast<uLong>(text.size())) + 32;
  std::string out(size, '\0');
  z_stream z{};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// More than one 4 MiB chunk of the readers and more than a pipe's buffer, so that both refill many times.
std::string many_records() {
  std::string text;
  for (int i = 0; text.size() < (std::size_t{9} << 20); ++i) {
    text += ">s" + std::to_string(i) + " record " + std::to_string(i) + "\n";
    for (int line = 0; line < 1 + i % 4; ++line)
      text += "ACDEFGHIKLMNPQRSTVWYACDEFGHIKLMNPQRSTVWYACDEFGHIKLMNPQRSTVWY\n";
  }
  return text;
}

// Hands out its bytes a few at a time, as a slow pipe does.
class TrickleSource final : public cudp::io::ChunkSource {
 public:
  TrickleSource(std::string text, std::size_t step) : text_(std::move(text)), step_(step) {}
  std::size_t read(const char*& data) override {
    data = text_.data() + at_;
    const std::size_t n = std::min(step_, text_.size() - at_);
    at_ += n;
    return n;
  }
  std::uint64_t size_hint() const override { return 0; }

 private:
  std::string text_;
  std::size_t step_;
  std::size_t at_ = 0;
};

}  // namespace

TEST_CASE("a peeked source hands out the bytes it looked at, then the rest", "[io][streams]") {
  const std::string text = ">a\nACDE\n>b\nKLMN\n";
  for (std::size_t step : {1, 3, 100}) {
    cudp::io::PeekedSource source(std::make_unique<TrickleSource>(text, step));
    CHECK(source.peek(8) == text.substr(0, 8));
    CHECK(source.peek(2) == text.substr(0, 2));
    std::string read;
    const char* data = nullptr;
    for (std::size_t n; (n = source.read(data)) != 0;) read.append(data, n);
    CHECK(read == text);
  }
  cudp::io::PeekedSource shorter(std::make_unique<TrickleSource>("ab", 1));
  CHECK(shorter.peek(8) == "ab");
}

TEST_CASE("FASTA from a pipe or a FIFO, plain or gzip, reads as from the file", "[io][streams]") {
  TempDir dir;
  const std::string text = many_records();
  const std::string file = dir.file("db.fa", text);
  const SequenceSet expected = cudp::io::read_fasta(file, cudp::bio::protein());
  {
    InputPipe pipe(text);
    require_same(cudp::io::read_fasta(pipe.path(), cudp::bio::protein()), expected);
  }
  {
    InputPipe pipe(text);
    require_same(cudp::io::load_sequences(pipe.path(), cudp::bio::protein()), expected);
  }
  {
    InputPipe pipe(gzip(text));
    require_same(cudp::io::load_sequences(pipe.path(), cudp::bio::protein()), expected);
  }
  {
    // Smaller than the first look at the input: the whole of it is in the peeked bytes.
    InputPipe pipe(">q\nACDE\n");
    const SequenceSet one = cudp::io::load_sequences(pipe.path(), cudp::bio::protein());
    REQUIRE(one.size() == 1);
    CHECK(one.names[0] == "q");
  }
  const std::string fifo = dir / "fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  const SequenceSet from_fifo = cudp::io::load_sequences(fifo, cudp::bio::protein());
  writer.join();
  require_same(from_fifo, expected);
}

TEST_CASE("errors in a piped input name the stream and the line", "[io][streams]") {
  InputPipe pipe(">a\nACDE\n>b\nAC1E\n");
  CHECK_THROWS_WITH(cudp::io::load_sequences(pipe.path(), cudp::bio::protein()),
                    pipe.path() + ":4:3: invalid residue '1' in sequence 'b' (not a protein letter)");
  InputPipe not_fasta("hello\n");
  CHECK_THROWS_WITH(cudp::io::load_sequences(not_fasta.path(), cudp::bio::protein()),
                    Catch::Contains(not_fasta.path() + ":1") && Catch::Contains("expected '>'"));
  InputPipe named(">a\nAC1E\n");
  CHECK_THROWS_WITH(cudp::io::SequenceInput(named.path(), "standard input").read_fasta(cudp::bio::protein()),
                    "standard input:2:3: invalid residue '1' in sequence 'a' (not a protein letter)");
  CHECK_FALSE(cudp::io::is_regular_file(named.path()));
  InputPipe empty("");
  CHECK_THROWS_WITH(cudp::io::load_sequences(empty.path(), cudp::bio::protein()),
                    empty.path() + ": no sequences found");
}

TEST_CASE("a packed database from a pipe, plain or gzip, reads as from the file", "[io][streams]") {
  TempDir dir;
  const std::string fasta = dir.file("db.fa", many_records());
  const SequenceSet expected = cudp::io::read_fasta(fasta, cudp::bio::protein());
  const std::string packed = dir / "db.cudpdb";
  cudp::io::write_database(packed, expected, cudp::bio::protein());
  cudp::io::DatabaseReadOptions threads;
  threads.threads = 3;
  {
    InputPipe pipe(file_bytes(packed));
    cudp::io::SequenceInput input(pipe.path());
    CHECK(input.is_database());
    CHECK(input.database_kind() == 0);
    require_same(input.read_database(cudp::bio::protein(), threads), expected);
  }
  {
    InputPipe pipe(gzip(file_bytes(packed)));
    require_same(cudp::io::load_sequences(pipe.path(), cudp::bio::protein(), threads), expected);
  }
  {
    const std::string bytes = file_bytes(packed);
    InputPipe pipe(bytes.substr(0, bytes.size() - 1));
    CHECK_THROWS_WITH(cudp::io::load_sequences(pipe.path(), cudp::bio::protein()),
                      Catch::StartsWith(pipe.path() + ": truncated or corrupt database"));
  }
  {
    // write_database writes a stream in place.
    OutputPipe out;
    cudp::io::write_database(out.path(), expected, cudp::bio::protein());
    CHECK(out.finish() == file_bytes(packed));
  }
}

TEST_CASE("outputs that are streams are written in place and in the order given", "[io][streams]") {
  TempDir dir;
  const std::string a = "main output\n", b = "table\n", c = "regular\n";
  CHECK(cudp::io::is_output_stream("/dev/stdout"));
  CHECK(cudp::io::is_output_stream("/dev/null"));
  CHECK_FALSE(cudp::io::is_output_stream(dir / "missing.txt"));
  CHECK_FALSE(cudp::io::is_output_stream(dir.file("regular.txt", "")));
  {
    // Two outputs to one stream, the first given first; the regular file of the same run is written too.
    OutputPipe out;
    cudp::io::write_outputs({{out.path(), &a}, {dir / "c.txt", &c}, {out.path(), &b}});
    CHECK(out.finish() == a + b);
    CHECK(file_bytes(dir / "c.txt") == c);
    CHECK_FALSE(std::filesystem::exists(dir / "c.txt.tmp"));
  }
  {
    const std::string fifo = dir / "out.fifo";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    std::string got;
    std::thread reader([&] { got = file_bytes(fifo); });
    cudp::io::check_writable(fifo);  // must not open (and so block on) the FIFO
    cudp::io::write_outputs({{fifo, &a}});
    reader.join();
    CHECK(got == a);
    struct stat st {};
    REQUIRE(stat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
    CHECK_FALSE(std::filesystem::exists(fifo + ".tmp"));
  }
  {
    // A /dev/fd/N name of a regular file open in the process (the shell's `> file`) is written through the open
    // descriptor: appended after what is there, not replaced by a renamed file.
    const std::string path = dir.file("appended.txt", "before\n");
    const int fd = open(path.c_str(), O_WRONLY | O_APPEND);
    REQUIRE(fd >= 0);
    cudp::io::write_outputs({{"/dev/fd/" + std::to_string(fd), &a}});
    close(fd);
    CHECK(file_bytes(path) == "before\n" + a);
  }
}

TEST_CASE("a failed write leaves no regular output, and streams get nothing", "[io][streams]") {
  TempDir dir;
  const std::string text = "text\n";
  OutputPipe out;
  CHECK_THROWS_AS(
      cudp::io::write_outputs({{out.path(), &text}, {dir / "a.txt", &text}, {dir / "no-such-directory/b.txt", &text}}),
      InputError);
  CHECK(out.finish().empty());
  CHECK_FALSE(std::filesystem::exists(dir / "a.txt"));
  CHECK_FALSE(std::filesystem::exists(dir / "a.txt.tmp"));
}
