// cudp-gen-db: seeded synthetic protein database (Swiss-Prot-like lengths and composition) for the search benchmarks,
// with an optional query ladder and planted homologs of those queries so that searches have true hits.
//
//   cudp-gen-db --seed S --sequences N [--median 290 --sigma 0.62 --min 20 --max 36000] --out db.fa
//               [--queries-out queries.fa] [--plant K --identity 0.7]
//
// Output is a pure function of the arguments: only std::mt19937_64 (whose output sequence the C++ standard fixes)
// is used, with our own uniform, normal and categorical sampling, because the std:: distributions differ between
// standard libraries. The database sequences do not depend on --queries-out/--plant, and the queries do not depend
// on --sequences, because each comes from its own stream.
#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

// HMMER 3's amino-acid background (p7_AminoFrequencies: Swiss-Prot 50.8), alphabetical by one-letter code.
constexpr char kResidues[20] = {'A', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'K', 'L',
                                'M', 'N', 'P', 'Q', 'R', 'S', 'T', 'V', 'W', 'Y'};
constexpr double kBackground[20] = {0.0787945, 0.0151600, 0.0535222, 0.0668298, 0.0397062, 0.0695071, 0.0229198,
                                    0.0590092, 0.0594422, 0.0963728, 0.0237718, 0.0414386, 0.0482904, 0.0395639,
                                    0.0540978, 0.0683364, 0.0540687, 0.0673417, 0.0114135, 0.0304133};

// Lengths of the CUDASW++4.0 benchmark queries, so that cell-update rates can be compared query by query.
constexpr int kQueryLengths[20] = {144, 189, 222, 246, 255, 266, 318, 361, 375, 464,
                                   503, 553, 567, 657, 1000, 1500, 2005, 2504, 3005, 5478};

constexpr int kLineWidth = 60;

// Derives independent stream seeds from the user seed (SplitMix64 finaliser), so nearby user seeds do not give
// correlated mt19937_64 states.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : eng_(seed) {}

  std::uint64_t bits() { return eng_(); }

  // Uniform on (0, 1]: never 0, so log() below is always finite.
  double uniform_open0() { return (static_cast<double>(eng_() >> 11) + 1.0) * 0x1.0p-53; }
  // Uniform on [0, 1).
  double uniform() { return static_cast<double>(eng_() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n), n <= 2^32, by multiply-shift; the bias is below n / 2^32, irrelevant here.
  std::uint64_t below(std::uint64_t n) { return ((eng_() >> 32) * n) >> 32; }

  // Box-Muller, keeping the second variate for the next call.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform_open0()));
    const double t = 2.0 * 3.14159265358979323846 * uniform();
    spare_ = r * std::sin(t);
    has_spare_ = true;
    return r * std::cos(t);
  }

 private:
  std::mt19937_64 eng_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// Inverse-CDF sampler over the 20 residues at 32-bit resolution. A 1024-bucket index on the top bits of the
// uniform gives the first candidate, so the scan is usually zero or one step: drawing 200M residues must take
// about a second, not ten.
class ResidueSampler {
 public:
  ResidueSampler() {
    double total = 0.0;
    for (double f : kBackground) total += f;
    double cum = 0.0;
    for (int i = 0; i < 20; ++i) {
      cum += kBackground[i] / total;
      const double scaled = std::ldexp(cum, 32);
      upper_[i] = i == 19 ? UINT64_C(1) << 32 : static_cast<std::uint64_t>(scaled);
    }
    int r = 0;
    for (int b = 0; b < kBuckets; ++b) {
      const std::uint64_t lo = static_cast<std::uint64_t>(b) << (32 - kBucketBits);
      while (upper_[r] <= lo) ++r;
      bucket_[b] = static_cast<std::uint8_t>(r);
    }
  }

  char from_u32(std::uint32_t u) const {
    int r = bucket_[u >> (32 - kBucketBits)];
    while (upper_[r] <= u) ++r;
    return kResidues[r];
  }

  char draw(Rng& rng) const { return from_u32(static_cast<std::uint32_t>(rng.bits() >> 32)); }

  // Two residues per 64-bit draw; the database is 99% of the work.
  void fill(Rng& rng, char* out, std::size_t n) const {
    std::size_t i = 0;
    for (; i + 2 <= n; i += 2) {
      const std::uint64_t x = rng.bits();
      out[i] = from_u32(static_cast<std::uint32_t>(x >> 32));
      out[i + 1] = from_u32(static_cast<std::uint32_t>(x));
    }
    if (i < n) out[i] = draw(rng);
  }

 private:
  static constexpr int kBucketBits = 10;
  static constexpr int kBuckets = 1 << kBucketBits;
  std::uint64_t upper_[20];
  std::uint8_t bucket_[kBuckets];
};

class FastaWriter {
 public:
  explicit FastaWriter(const std::string& path) : path_(path) {
    f_ = std::fopen(path.c_str(), "wb");
    if (!f_) {
      std::fprintf(stderr, "cudp-gen-db: cannot open %s for writing: %s\n", path.c_str(), std::strerror(errno));
      std::exit(1);
    }
    buf_.reserve(kFlushAt + 64 * 1024);
  }
  ~FastaWriter() { close(); }

  void record(const std::string& header, const char* seq, std::size_t n) {
    buf_.push_back('>');
    buf_.append(header);
    buf_.push_back('\n');
    for (std::size_t i = 0; i < n; i += kLineWidth) {
      buf_.append(seq + i, std::min<std::size_t>(kLineWidth, n - i));
      buf_.push_back('\n');
      if (buf_.size() >= kFlushAt) flush();
    }
    if (buf_.size() >= kFlushAt) flush();
  }

  void close() {
    if (!f_) return;
    flush();
    if (std::fclose(f_) != 0) fail();
    f_ = nullptr;
  }

 private:
  static constexpr std::size_t kFlushAt = 8u << 20;

  void flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) fail();
    buf_.clear();
  }
  [[noreturn]] void fail() {
    std::fprintf(stderr, "cudp-gen-db: write to %s failed: %s\n", path_.c_str(), std::strerror(errno));
    std::exit(1);
  }

  std::string path_;
  std::FILE* f_ = nullptr;
  std::string buf_;
};

struct Options {
  std::uint64_t seed = 1;
  std::uint64_t sequences = 570000;
  double median = 290.0;
  double sigma = 0.62;
  int min_len = 20;
  int max_len = 36000;
  std::string out;
  std::string queries_out;
  int plant = 0;
  double identity = 0.70;
};

const char* const kUsage =
    "usage: cudp-gen-db --out db.fa [--seed S] [--sequences N] [--median 290] [--sigma 0.62]\n"
    "                   [--min 20] [--max 36000] [--queries-out queries.fa] [--plant K] [--identity 0.7]\n"
    "  Lognormal lengths, HMMER background residues, 60 per line. --queries-out writes the 20-query\n"
    "  ladder (144..5478 aa); --plant K inserts K mutated copies of every query into the database, and so\n"
    "  needs --queries-out.\n";

// An error: the message and the usage on standard error, exit status 2.
[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "cudp-gen-db: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  auto value = [&](int& i) -> const char* {
    if (i + 1 >= argc) usage_error(std::string("missing value for ") + argv[i]);
    return argv[++i];
  };
  auto to_u64 = [](const char* s, const char* what) {
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(s, &end, 10);
    if (errno || !end || *end || *s == '-') usage_error(std::string(what) + " expects a number, got '" + s + "'");
    return static_cast<std::uint64_t>(v);
  };
  auto to_double = [](const char* s, const char* what) {
    char* end = nullptr;
    double v = std::strtod(s, &end);
    if (!end || *end || !std::isfinite(v)) usage_error(std::string(what) + " expects a number, got '" + s + "'");
    return v;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seed") o.seed = to_u64(value(i), "--seed");
    else if (a == "--sequences") o.sequences = to_u64(value(i), "--sequences");
    else if (a == "--median") o.median = to_double(value(i), "--median");
    else if (a == "--sigma") o.sigma = to_double(value(i), "--sigma");
    else if (a == "--min") o.min_len = static_cast<int>(to_u64(value(i), "--min"));
    else if (a == "--max") o.max_len = static_cast<int>(to_u64(value(i), "--max"));
    else if (a == "--out") o.out = value(i);
    else if (a == "--queries-out") o.queries_out = value(i);
    else if (a == "--plant") o.plant = static_cast<int>(to_u64(value(i), "--plant"));
    else if (a == "--identity") o.identity = to_double(value(i), "--identity");
    else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else usage_error("unknown argument " + a);
  }
  if (o.out.empty()) usage_error("--out is required");
  if (o.median <= 0 || o.sigma < 0) usage_error("--median must be > 0 and --sigma >= 0");
  if (o.min_len < 1 || o.max_len < o.min_len) usage_error("--min and --max must satisfy 1 <= min <= max");
  if (o.identity <= 0 || o.identity > 1) usage_error("--identity must be in (0, 1]");
  if (o.sequences >= (UINT64_C(1) << 32)) usage_error("--sequences must be below 2^32");
  if (o.plant > 0 && o.queries_out.empty())
    usage_error("--plant needs --queries-out: the planted homologs are copies of the queries written there");
  return o;
}

// A homolog of q: substitutions to a different residue at rate 1 - identity, plus short insertions and deletions
// (about one event per 50 residues each, geometric lengths averaging 3), inside random flanks of up to 100
// residues so that local alignment has to find it rather than align end to end.
std::string mutate(const std::string& q, double identity, Rng& rng, const ResidueSampler& rs) {
  constexpr double kIndelRate = 0.02;
  constexpr double kIndelExtend = 2.0 / 3.0;
  auto indel_length = [&] {
    int len = 1;
    while (rng.uniform() < kIndelExtend && len < 30) ++len;
    return len;
  };
  std::string out;
  out.reserve(q.size() + q.size() / 4 + 200);
  auto flank = [&] {
    const std::size_t n = rng.below(101);
    const std::size_t at = out.size();
    out.resize(at + n);
    rs.fill(rng, &out[at], n);
  };
  flank();
  for (std::size_t i = 0; i < q.size(); ++i) {
    const double r = rng.uniform();
    if (r < kIndelRate / 2) {  // insertion before q[i]
      for (int k = indel_length(); k > 0; --k) out.push_back(rs.draw(rng));
    } else if (r < kIndelRate) {  // deletion starting at q[i]
      i += indel_length() - 1;
      continue;
    }
    char c = q[i];
    if (rng.uniform() >= identity) {
      char d;
      do d = rs.draw(rng);
      while (d == c);
      c = d;
    }
    out.push_back(c);
  }
  flank();
  return out;
}

int length_from(double z, const Options& o) {
  const double len = std::exp(std::log(o.median) + o.sigma * z);
  if (!(len < static_cast<double>(o.max_len))) return o.max_len;
  return std::max(o.min_len, static_cast<int>(std::llround(len)));
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const auto t0 = std::chrono::steady_clock::now();
  const ResidueSampler rs;

  // Queries first: the plants need them.
  std::vector<std::string> queries;
  if (!o.queries_out.empty()) {
    Rng qrng(mix_seed(o.seed, 1));
    FastaWriter qw(o.queries_out);
    for (int qi = 0; qi < 20; ++qi) {
      std::string q(static_cast<std::size_t>(kQueryLengths[qi]), 'A');
      rs.fill(qrng, &q[0], q.size());
      char header[64];
      std::snprintf(header, sizeof header, "q%02d_len%d synthetic query", qi + 1, kQueryLengths[qi]);
      qw.record(header, q.data(), q.size());
      queries.push_back(std::move(q));
    }
    qw.close();
  }

  // Plants go between database records at positions drawn up front, so the database stream is the same with or
  // without them and the homologs are spread through the file rather than bunched at one end.
  struct Plant {
    std::uint64_t before;  // index of the random record it precedes (== sequences: at the end)
    int query;
    int copy;
  };
  std::vector<Plant> plants;
  Rng prng(mix_seed(o.seed, 2));
  for (int qi = 0; qi < static_cast<int>(queries.size()); ++qi)
    for (int k = 0; k < o.plant; ++k) plants.push_back({prng.below(o.sequences + 1), qi, k});
  std::stable_sort(plants.begin(), plants.end(), [](const Plant& a, const Plant& b) { return a.before < b.before; });

  Rng drng(mix_seed(o.seed, 0));
  FastaWriter w(o.out);
  std::string seq;
  std::uint64_t residues = 0, planted_residues = 0;
  std::size_t next_plant = 0;
  char header[128];
  auto emit_plants_before = [&](std::uint64_t index) {
    for (; next_plant < plants.size() && plants[next_plant].before == index; ++next_plant) {
      const Plant& p = plants[next_plant];
      const std::string h = mutate(queries[p.query], o.identity, prng, rs);
      std::snprintf(header, sizeof header, "plant_q%02d_%d homolog of q%02d_len%d identity~%.2f", p.query + 1,
                    p.copy, p.query + 1, kQueryLengths[p.query], o.identity);
      w.record(header, h.data(), h.size());
      planted_residues += h.size();
    }
  };
  for (std::uint64_t i = 0; i < o.sequences; ++i) {
    emit_plants_before(i);
    const int len = length_from(drng.normal(), o);
    seq.resize(static_cast<std::size_t>(len));
    rs.fill(drng, &seq[0], seq.size());
    std::snprintf(header, sizeof header, "r%07llu", static_cast<unsigned long long>(i + 1));
    w.record(header, seq.data(), seq.size());
    residues += static_cast<std::uint64_t>(len);
  }
  emit_plants_before(o.sequences);
  w.close();

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "cudp-gen-db: %llu sequences, %llu residues (+%zu planted, %llu residues) -> %s in %.2f s\n",
               static_cast<unsigned long long>(o.sequences), static_cast<unsigned long long>(residues),
               plants.size(), static_cast<unsigned long long>(planted_residues), o.out.c_str(), secs);
  return 0;
}
