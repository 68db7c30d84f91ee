// cudp-hmmsearch's command line: hmmsearch's options, defaults, ranges and incompatibilities.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "options.hpp"

namespace {

std::optional<hmmsearch::Options> parse(std::vector<std::string> words) {
  std::vector<const char*> argv{"cudp-hmmsearch"};
  for (const auto& w : words) argv.push_back(w.c_str());
  return hmmsearch::parse_options(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("hmmsearch options parse into thresholds as p7_pipeline_Create sets them", "[hmmsearch]") {
  const auto o = parse({"-E", "1e-3", "--domT", "-2.5", "--incT", "30", "--incdomE", "0.5", "-Z", "1e6", "m.hmm",
                        "--cpu", "3", "db.fa", "--nonull2", "--tblout", "t.tbl"});
  REQUIRE(o);
  CHECK(o->hmm_file == "m.hmm");
  CHECK(o->seq_file == "db.fa");
  CHECK(*o->cpu == 3);
  CHECK(o->nonull2);
  CHECK(*o->tblout == "t.tbl");
  const auto t = o->thresholds();
  CHECK(t.by_E);
  CHECK(t.E == 1e-3);
  CHECK_FALSE(t.dom_by_E);
  CHECK(t.domT == -2.5);
  CHECK_FALSE(t.inc_by_E);
  CHECK(t.incT == 30);
  CHECK(t.incdom_by_E);
  CHECK(t.incdomE == 0.5);
  CHECK(*t.Z == 1e6);
  CHECK_FALSE(t.domZ);
  CHECK(o->given == std::vector<std::string>{"-E", "1e-3", "--domT", "-2.5", "--incT", "30", "--incdomE", "0.5", "-Z",
                                             "1e6", "--cpu", "3", "--nonull2", "--tblout", "t.tbl"});

  const auto d = parse({"m.hmm", "db.fa"});
  REQUIRE(d);
  const auto dt = d->thresholds();
  CHECK(dt.E == 10.0);
  CHECK(dt.domE == 10.0);
  CHECK(dt.incE == 0.01);
  CHECK(dt.incdomE == 0.01);
  CHECK(d->backend == "auto");
  CHECK_FALSE(d->cpu);
  CHECK_FALSE(parse({"-h"}));
  CHECK_FALSE(parse({"m.hmm", "--help"}));
}

TEST_CASE("bad hmmsearch command lines are usage errors naming the option", "[hmmsearch]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"-E", "0", "m", "d"}, "-E must be > 0, got 0"},
      {{"--domE", "-1", "m", "d"}, "--domE must be > 0"},
      {{"--incE", "x", "m", "d"}, "--incE expects a real number, got 'x'"},
      {{"-Z", "1e999", "m", "d"}, "-Z expects a real number"},
      {{"--domZ", "0", "m", "d"}, "--domZ must be > 0"},
      {{"--F3", "-1e-5", "m", "d"}, "--F3 must be >= 0"},
      {{"--cpu", "2.5", "m", "d"}, "--cpu expects an integer"},
      {{"-T", "1", "-E", "1", "m", "d"}, "-E and -T"},
      {{"--incdomT", "1", "--incdomE", "1", "m", "d"}, "--incdomE and --incdomT"},
      {{"--max", "--nobias", "m", "d"}, "--max and --nobias"},
      {{"--max", "--F2", "0.1", "m", "d"}, "--max and --F2"},
      {{"--backend", "opencl", "m", "d"}, "--backend must be auto, cuda or host"},
      {{"--bogus", "m", "d"}, "unknown option --bogus"},
      {{"--cut_ga", "--cut_tc", "m", "d"}, "--cut_ga and --cut_tc"},
      {{"--cut_nc", "--incE", "0.1", "m", "d"}, "--incE and --cut_nc"},
      {{"-T", "20", "--cut_ga", "m", "d"}, "-T and --cut_ga"},
      {{"--textw", "100", "m", "d"}, "--textw must be >= 120"},
      {{"--textw", "130", "--notextw", "m", "d"}, "--notextw and --textw"},
      {{"--seed", "0", "m", "d"}, "--seed 0"},
      {{"--tformat", "embl", "m", "d"}, "only fasta"},
      {{"--seed", "-3", "m", "d"}, "--seed expects an integer"},
      {{"m", "d", "-o"}, "-o needs a value"},
      {{"m"}, "expected two arguments"},
      {{"m", "d", "e"}, "got 3"},
      {{"--daemon", "s", "--connect", "s", "d"}, "--daemon and --connect"},
      {{"--daemon", "s", "--tblout", "t", "d"}, "--tblout belongs to a search"},
      {{"--daemon", "s", "m", "d"}, "--daemon expects one argument"},
      {{"--connect", "s", "--cpu", "4", "m", "d"}, "--cpu belongs to the daemon"},
      {{"--connect", "s", "--backend", "host", "m", "d"}, "--backend belongs to the daemon"},
      {{"--connect", "s", "m", "-"}, "not standard input"},
  };
  for (const auto& [words, message] : cases) {
    INFO(message);
    try {
      parse(words);
      FAIL("accepted");
    } catch (const hmmsearch::UsageError& e) {
      CHECK(std::string(e.what()).find(message) != std::string::npos);
    }
  }
}

TEST_CASE("a daemon takes its database and backend; a client takes the search", "[hmmsearch]") {
  const auto daemon = parse({"--daemon", "/tmp/s", "--cpu", "8", "--backend", "cuda", "db.cudpdb"});
  REQUIRE(daemon);
  CHECK(*daemon->daemon == "/tmp/s");
  CHECK(daemon->seq_file == "db.cudpdb");
  CHECK(daemon->hmm_file.empty());
  CHECK(*daemon->cpu == 8);
  CHECK(daemon->backend == "cuda");

  const auto client = parse({"--connect", "/tmp/s", "--tblout", "t", "-E", "1e-3", "m.hmm", "db.cudpdb"});
  REQUIRE(client);
  CHECK(*client->connect == "/tmp/s");
  CHECK_FALSE(client->daemon);
  CHECK(client->hmm_file == "m.hmm");
  CHECK(*client->tblout == "t");
  CHECK(client->thresholds().E == 1e-3);
}
