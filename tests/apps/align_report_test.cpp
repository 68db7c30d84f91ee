// cudp-align's report writers and command line, on hand-made alignments whose every number is worked out here.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <cudp/bio/alphabet.hpp>
#include <cudp/io/matrix.hpp>

#include "align/backend.hpp"
#include "align/options.hpp"
#include "align/report.hpp"

using namespace align_app;
using cudp::align::Alignment;
using cudp::align::EditOp;

namespace {

std::vector<std::uint8_t> encode(const std::string& s) {
  std::vector<std::uint8_t> out;
  for (char c : s) out.push_back(static_cast<std::uint8_t>(cudp::bio::dna_iupac().encode(c)));
  return out;
}

struct Fixture {
  cudp::io::SubstitutionMatrix matrix = cudp::io::load_matrix("NUC.4.4", cudp::bio::dna_iupac());
  std::vector<std::uint8_t> qc = encode("TTACGNAGT"), tc = encode("ACGNCAGTCC");
  Sequence q{"query_with_a_long_name", qc.data(), 9}, t{"t", tc.data(), 10};
  ReportContext ctx{&cudp::bio::dna_iupac(), &matrix, "NUC.4.4", {10, 1}, AlignMode::Local};
  // query[2,9) ACGNAGT against target[0,8) ACGNCAGT: 4=, 1D (C), 3=.
  Alignment a{0, 2, 9, 0, 8, {{EditOp::Match, 4}, {EditOp::Deletion, 1}, {EditOp::Match, 3}}};
  Fixture() { a.score = cudp::align::rescore(a, AlignMode::Local, q.codes, 9, t.codes, 10, matrix, ctx.gaps); }
};

}  // namespace

TEST_CASE("pair: columns, EMBOSS marks and counts", "[align_report]") {
  Fixture f;
  // A C G T 5 each, N against N -1, gap 10 + 1.
  CHECK(f.a.score == 5 * 3 - 1 - 11 + 5 * 3);
  const PairColumns c = pair_columns(f.ctx, f.q, f.t, f.a);
  CHECK(c.top == "ACGN-AGT");
  CHECK(c.bottom == "ACGNCAGT");
  CHECK(c.middle == "|||  |||");  // N against N scores -1: a space, as is the gap
  CHECK(c.identities == 7);
  CHECK(c.similarities == 6);
  CHECK(c.gaps == 1);
  const auto counts = cudp::align::counts_of(f.a, f.q.codes, 9, f.t.codes, 10, f.matrix);
  CHECK(counts.length == 8);
  CHECK(counts.identities == c.identities);
  CHECK(counts.positives == c.similarities);

  std::ostringstream out;
  write_pair(out, f.ctx, f.q, f.t, f.a);
  const std::string text = out.str();
  CHECK(text.find("# Identity:       7/8 (87.5%)\n# Similarity:     6/8 (75.0%)\n# Gaps:           1/8 (12.5%)\n"
                  "# Score: 18.0\n") != std::string::npos);
  CHECK(text.find("\nquery_with_a_      3 ACGN-AGT      9\n                     |||  |||\nt                  1 ACGNCAGT  "
                  "    8\n\n\n") != std::string::npos);
}

TEST_CASE("pair: global shows the whole sequences; a row of gaps only repeats the last position", "[align_report]") {
  Fixture f;
  f.ctx.mode = AlignMode::SemiGlobal;
  std::ostringstream out;
  write_pair(out, f.ctx, f.q, f.t, f.a);
  const std::string text = out.str();
  // TT before and CC after as end gaps: 12 columns.
  CHECK(text.find("# Length: 12\n") != std::string::npos);
  CHECK(text.find("query_with_a_      1 TTACGN-AGT--      9\n") != std::string::npos);
  CHECK(text.find("t                  0 --ACGNCAGTCC     10\n") == std::string::npos);
  CHECK(text.find("t                  1 --ACGNCAGTCC     10\n") != std::string::npos);

  // 60 query residues against 1: the second block's target row has no residue.
  std::vector<std::uint8_t> longq(60, f.qc[2]), one(1, f.qc[2]);
  Sequence lq{"q", longq.data(), 60}, lt{"t", one.data(), 1};
  Alignment g{0, 0, 60, 0, 1, {{EditOp::Match, 1}, {EditOp::Insertion, 59}}};
  f.ctx.mode = AlignMode::Global;
  std::ostringstream out2;
  write_pair(out2, f.ctx, lq, lt, g);
  CHECK(out2.str().find("t                  1 A-------------------------------------------------      1\n") !=
        std::string::npos);
  CHECK(out2.str().find("t                  1 ----------      1\n") != std::string::npos);
  CHECK(out2.str().find("q                 51 AAAAAAAAAA     60\n") != std::string::npos);
}

TEST_CASE("SAM: soft clips, end deletions moved into POS, NM", "[align_report]") {
  Fixture f;
  SamAlignment s = sam_alignment(f.q, f.a);
  REQUIRE(s.mapped);
  CHECK(s.pos == 1);
  std::string cigar;
  for (const auto& op : s.cigar) cigar += std::to_string(op.length) + op.op;
  CHECK(cigar == "2S4=1D3=");
  CHECK(s.edit_distance == 1);

  // Global: 2 target residues against gaps first and last are not in the CIGAR.
  Alignment g{0, 0, 3, 0, 7, {{EditOp::Deletion, 2}, {EditOp::Match, 1}, {EditOp::Insertion, 1}, {EditOp::Mismatch, 1},
                              {EditOp::Deletion, 1}, {EditOp::Match, 1}, {EditOp::Deletion, 2}}};
  Sequence q3{"q", f.qc.data(), 3};
  s = sam_alignment(q3, g);
  cigar.clear();
  for (const auto& op : s.cigar) cigar += std::to_string(op.length) + op.op;
  CHECK(s.pos == 3);
  CHECK(cigar == "1=1I1X1D1=");
  CHECK(s.edit_distance == 3);

  // Nothing aligned: unmapped.
  Alignment none{0, 0, 3, 0, 2, {{EditOp::Insertion, 3}, {EditOp::Deletion, 2}}};
  CHECK_FALSE(sam_alignment(q3, none).mapped);
  std::ostringstream out;
  write_sam(out, f.ctx, q3, f.t, none, false);
  CHECK(out.str() == "q\t4\t*\t0\t0\t*\t*\t0\t0\tTTA\t*\tAS:i:0\n");
}

TEST_CASE("tabular: BLAST's columns and rounding", "[align_report]") {
  Fixture f;
  std::ostringstream out;
  write_tabular(out, f.ctx, f.q, f.t, f.a, std::nullopt);
  CHECK(out.str() == "query_with_a_long_name\tt\t87.500\t8\t0\t1\t3\t9\t1\t8\t-\t-\t18\t4=1D3=\n");
  CHECK(blast_evalue(2.1634e-82) == "2.16e-82");
  CHECK(blast_evalue(2.48e-3) == "0.002");
  CHECK(blast_evalue(0.248) == "0.25");
  CHECK(blast_evalue(2.48) == "2.5");
  CHECK(blast_evalue(24.8) == "25");
  CHECK(blast_evalue(1e-200) == "0.0");
  CHECK(blast_bits(285.8) == "285");
  CHECK(blast_bits(48.46) == "48.5");
}

TEST_CASE("options: defaults and refusals", "[align_report]") {
  const auto parse = [](std::vector<const char*> args) {
    args.insert(args.begin(), "cudp-align");
    return parse_args(static_cast<int>(args.size()), args.data());
  };
  const auto o = parse({"--query", "q.fa", "--target", "t.fa"});
  REQUIRE(o);
  CHECK(o->mode == "global");
  CHECK(o->pairs == "one-to-one");
  CHECK(o->format == "pair");
  CHECK_FALSE(o->gap_open);  // chosen by alphabet later
  CHECK_FALSE(parse({"-h"}));
  CHECK_THROWS_WITH(parse({"--query", "q", "--target", "t", "--gap-open", "-1"}), Catch::Contains(">= 0"));
  CHECK_THROWS_WITH(parse({"--query", "q", "--target", "t", "--match", "2", "--matrix", "NUC.4.4"}),
                    Catch::Contains("exclude"));
  CHECK_THROWS_AS(parse({"--query", "q", "--target", "t", "--backend", "gpu"}), std::invalid_argument);
}

TEST_CASE("--backend auto knows a run is small from plain files' sizes, and only from those", "[align][app]") {
  const std::string small = "align_report_test_small.fa", large = "align_report_test_large.fa",
                    gzip = "align_report_test.fa.gz";
  std::ofstream(small) << ">s\n" << std::string(96, 'A') << "\n";  // 100 bytes
  std::ofstream(large) << ">l\n" << std::string(19996, 'A') << "\n";  // 20,000 bytes
  std::ofstream(gzip) << "\x1f\x8b" << std::string(98, 'x');  // gzip's magic: its size says nothing
  CHECK(cells_bound(small, small) == 1e4);
  CHECK(small_for_gpu(cells_bound(small, large)));  // 2e6 cells at most
  CHECK_FALSE(small_for_gpu(cells_bound(large, large)));  // 4e8
  CHECK(cells_bound(small, gzip) == 0);
  CHECK(cells_bound(small, "align_report_test_missing.fa") == 0);
  CHECK(cells_bound(small, ".") == 0);  // not a regular file
  CHECK_FALSE(small_for_gpu(0));
  for (const auto& f : {small, large, gzip}) std::remove(f.c_str());
}
