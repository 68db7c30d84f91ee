// cudp-hmmsearch's command line: hmmsearch's options, defaults, ranges and incompatibilities.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "hmmer/options.hpp"

namespace {

std::optional<hmmsearch::Options> parse(std::vector<std::string> words) {
  std::vector<const char*> argv{"cudp-hmmsearch"};
  for (const auto& w : words) argv.push_back(w.c_str());
  return hmmsearch::parse_options(static_cast<int>(argv.size()), argv.data());
}

using RefusedLines = std::vector<std::pair<std::vector<std::string>, std::string>>;

// Each command line must be refused with a usage error whose message contains the text beside it.
void require_usage_errors(const RefusedLines& cases) {
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

}  // namespace

TEST_CASE("hmmsearch options parse into thresholds as p7_pipeline_Create sets them", "[hmmsearch]") {
  const auto o = parse({"-E", "1e-3", "--domT", "-2.5", "--incT", "30", "--incdomE", "0.5", "-Z", "1e6", "--cpu", "3",
                        "--nonull2", "--tblout", "t.tbl", "m.hmm", "db.fa"});
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
  CHECK(o->given == std::vector<std::string>{"--tblout", "t.tbl", "-E", "1e-3", "--domT", "-2.5", "--incT", "30",
                                             "--incdomE", "0.5", "--nonull2", "-Z", "1e6", "--cpu", "3"});

  const auto d = parse({"m.hmm", "db.fa"});
  REQUIRE(d);
  const auto dt = d->thresholds();
  CHECK(dt.E == 10.0);
  CHECK(dt.domE == 10.0);
  CHECK(dt.incE == 0.01);
  CHECK(dt.incdomE == 0.01);
  CHECK(d->backend == "auto");
  CHECK_FALSE(d->cpu);
  CHECK(d->gpus == cudp::apps::kGpusUnset);
  CHECK(parse({"--gpus", "all", "m.hmm", "db.fa"})->gpus == cudp::apps::kGpusAll);
  CHECK(parse({"--gpus", "3", "m.hmm", "db.fa"})->gpus == 3);
  CHECK_FALSE(parse({"-h"}));
  CHECK_FALSE(parse({"--help"}));
}

TEST_CASE("bad hmmsearch command lines are usage errors naming the option", "[hmmsearch]") {
  const RefusedLines cases{
      {{"-E", "0", "m", "d"}, "-E must be > 0, got 0"},
      {{"--domE", "-1", "m", "d"}, "--domE must be > 0"},
      {{"--incE", "x", "m", "d"}, "--incE expects a real number, got 'x'"},
      {{"-Z", "1e9x", "m", "d"}, "-Z expects a real number"},
      {{"--domZ", "0", "m", "d"}, "--domZ must be > 0"},
      {{"--F3", "-1e-5", "m", "d"}, "--F3 must be >= 0"},
      {{"--cpu", "2.5", "m", "d"}, "--cpu expects an integer"},
      {{"-T", "1", "-E", "1", "m", "d"}, "-E and -T"},
      {{"--incdomT", "1", "--incdomE", "1", "m", "d"}, "--incdomE and --incdomT"},
      {{"--max", "--nobias", "m", "d"}, "--max and --nobias"},
      {{"--max", "--F2", "0.1", "m", "d"}, "--max and --F2"},
      {{"--backend", "opencl", "m", "d"}, "--backend must be auto, cuda or host"},
      {{"--gpus", "0", "m", "d"}, "--gpus must be all or a number >= 1, got '0'"},
      {{"--gpus", "some", "m", "d"}, "--gpus expects an integer"},
      {{"--bogus", "m", "d"}, "unknown option --bogus"},
      {{"--cut_ga", "--cut_tc", "m", "d"}, "--cut_ga and --cut_tc"},
      {{"--cut_nc", "--incE", "0.1", "m", "d"}, "--incE and --cut_nc"},
      {{"-T", "20", "--cut_ga", "m", "d"}, "-T and --cut_ga"},
      {{"--textw", "100", "m", "d"}, "--textw must be >= 120"},
      {{"--textw", "130", "--notextw", "m", "d"}, "--notextw and --textw"},
      {{"--seed", "0", "m", "d"}, "--seed 0"},
      {{"--tformat", "embl", "m", "d"}, "only fasta"},
      {{"--seed", "-3", "m", "d"}, "--seed expects an integer"},
      {{"-o"}, "-o needs a value"},
      {{"m"}, "expected two arguments"},
      {{"m", "d", "e"}, "got 3"},
      {{"--daemon", "s", "--connect", "s", "d"}, "--daemon and --connect"},
      {{"--daemon", "s", "--tblout", "t", "d"}, "--tblout belongs to a search"},
      {{"--daemon", "s"}, "--daemon expects one or more arguments"},
      {{"--connect", "s", "--cpu", "4", "m", "d"}, "--cpu belongs to the daemon"},
      {{"--connect", "s", "--backend", "host", "m", "d"}, "--backend belongs to the daemon"},
      {{"--connect", "s", "--gpus", "2", "m", "d"}, "--gpus belongs to the daemon"},
      {{"--connect", "s", "m", "-"}, "not standard input"},
  };
  require_usage_errors(cases);
}

TEST_CASE("a daemon takes its database and backend; a client takes the search", "[hmmsearch]") {
  const auto daemon = parse({"--daemon", "/tmp/s", "--cpu", "8", "--backend", "cuda", "db.cudpdb"});
  REQUIRE(daemon);
  CHECK(*daemon->daemon == "/tmp/s");
  CHECK(daemon->seq_file == "db.cudpdb");
  CHECK(daemon->hmm_file.empty());
  CHECK(*daemon->cpu == 8);
  CHECK(daemon->backend == "cuda");
  CHECK(daemon->databases == std::vector<std::string>{"db.cudpdb"});
  const auto several = parse({"--daemon", "/tmp/s", "a.cudpdb", "b.cudpdb"});
  REQUIRE(several);
  CHECK(several->databases == std::vector<std::string>{"a.cudpdb", "b.cudpdb"});

  const auto client = parse({"--connect", "/tmp/s", "--tblout", "t", "-E", "1e-3", "m.hmm", "db.cudpdb"});
  REQUIRE(client);
  CHECK(*client->connect == "/tmp/s");
  CHECK_FALSE(client->daemon);
  CHECK(client->hmm_file == "m.hmm");
  CHECK(*client->tblout == "t");
  CHECK(client->thresholds().E == 1e-3);
}

// Easel's esl_getopts, which parses hmmsearch 3.3.2's command line: each case below was run through hmmsearch.
TEST_CASE("Easel's option syntax: --opt=value, -Xvalue, unique prefixes and --", "[hmmsearch]") {
  const auto o = parse({"--F1=0.5", "-E1e-3", "--noal", "--domtbl", "d.tbl", "--incdomE=0.5", "--", "m", "d"});
  REQUIRE(o);
  CHECK(*o->F1 == 0.5);
  CHECK(*o->E == 1e-3);
  CHECK(o->noali);
  CHECK(*o->domtblout == "d.tbl");
  CHECK(*o->incdomE == 0.5);
  CHECK(o->hmm_file == "m");
  CHECK(o->seq_file == "d");
  // The "Option settings" line of the tables: hmmsearch's table order and full names, values as typed.
  CHECK(o->given == std::vector<std::string>{"--domtblout", "d.tbl", "--noali", "-E", "1e-3", "--incdomE", "0.5", "--F1",
                                             "0.5"});

  // An exact name wins over the longer names it prefixes; "--" makes the next words files even if they look like
  // options; "-" alone is a file; a value glued with = may start with '-'.
  const auto e = parse({"--domE", "1", "-T-5", "--tblout=-", "-o-x", "--", "-", "-d"});
  REQUIRE(e);
  CHECK(*e->domE == 1);
  CHECK(*e->T == -5);
  CHECK(*e->tblout == "-");
  CHECK(*e->output == "-x");
  CHECK(e->hmm_file == "-");
  CHECK(e->seq_file == "-d");

  // -E inf and overflowing reals are infinity (strtod), leading and trailing blanks are allowed.
  const auto inf = parse({"-E", "inf", "--domE", "1e999", "-Z", " 5 ", "m", "d"});
  REQUIRE(inf);
  CHECK(std::isinf(*inf->E));
  CHECK(std::isinf(*inf->domE));
  CHECK(*inf->Z == 5);
  // --seed n is atoi(n): 2^32 + 42 is 42.
  const auto seed = parse({"--seed", "4294967338", "m", "d"});
  REQUIRE(seed);
  CHECK(*seed->seed == 42u);
  CHECK(seed->given == std::vector<std::string>{"--seed", "4294967338"});

  // -h among other one-letter options; the rest of the command line must still parse, as in hmmsearch.
  CHECK_FALSE(parse({"-hE", "1"}));
  CHECK_FALSE(parse({"-h", "a", "b", "c"}));
  CHECK_FALSE(parse({"--he"}));
  // After the first file argument everything is a file: hmmsearch opens "--help" as the database.
  const auto late_help = parse({"m.hmm", "--help"});
  REQUIRE(late_help);
  CHECK(late_help->seq_file == "--help");
  // cudp's own options take the same syntax.
  const auto cudp = parse({"--back=host", "--cp", "2", "m", "d"});
  REQUIRE(cudp);
  CHECK(cudp->backend == "host");
  CHECK(*cudp->cpu == 2);
}

TEST_CASE("command lines hmmsearch refuses", "[hmmsearch]") {
  const RefusedLines cases{
      {{"-E", "1", "-E", "2", "m", "d"}, "-E has already been set"},
      {{"--noali", "--noal", "m", "d"}, "--noali has already been set"},
      {{"m", "d", "-E", "1"}, "options must come before"},
      {{"m", "-E", "1", "d"}, "options must come before"},
      {{"--tblout", "-", "m", "d"}, "--tblout=-"},
      {{"-o", "-x", "m", "d"}, "-o-x"},
      {{"--backend", "-", "m", "d"}, "--backend=-"},
      {{"--do", "x", "m", "d"}, "\"--do\" is ambiguous"},
      {{"--cut", "m", "d"}, "\"--cut\" is ambiguous"},
      {{"--E", "5", "m", "d"}, "unknown option --E"},
      {{"-Q", "m", "d"}, "unknown option -Q"},
      {{"-E=5", "m", "d"}, "-E expects a real number, got '=5'"},
      {{"--F1=0.5=3", "m", "d"}, "--F1 expects a real number, got '0.5=3'"},
      {{"--noali=3", "m", "d"}, "--noali takes no value"},
      {{"-E", "nan", "m", "d"}, "-E must be > 0"},
      {{"--seed", "2147483648", "m", "d"}, "--seed"},
      {{"--seed", "4294967296", "m", "d"}, "one-time arbitrary seed"},
      {{"-hQ"}, "unknown option -Q"},
      {{"-h", "-E", "1", "-T", "1"}, "-E and -T"},
      {{"-A"}, "-A needs a value"},
  };
  require_usage_errors(cases);
}

TEST_CASE("a search's options go to the daemon in words that parse back to the same search", "[hmmsearch]") {
  const auto o = parse({"--connect", "/tmp/s", "--tblout=-t", "-E1e-3", "--noal", "-Aali.sto", "--", "-m.hmm", "db"});
  REQUIRE(o);
  const std::vector<std::string> words = hmmsearch::request_words(*o);
  const auto back = parse(words);
  REQUIRE(back);
  CHECK(*back->tblout == "-t");
  CHECK(*back->E == 1e-3);
  CHECK(back->noali);
  CHECK(*back->alignment_file == "ali.sto");
  CHECK(back->hmm_file == "-m.hmm");
  CHECK(back->seq_file == "db");
  CHECK(back->given == o->given);
}
