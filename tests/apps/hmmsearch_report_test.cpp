// cudp-hmmsearch's output formats against hmmsearch 3.3.2's, byte for byte.
//
// data/hmmsearch_golden/ holds hmmsearch's own outputs (main text with --noali, --tblout, --domtblout) for
// models.hmm (globins4 and fn3) against targets.fa (globins45.fa, 7LESS_DROME with 9 fn3 domains, three fn3
// emissions with 39-character names and descriptions, two unilocal fn3 samples in long flanks); make_golden.sh there
// rebuilds inputs and outputs with hmmsearch 3.3.2:
//   base: hmmsearch --cpu 0 --noali -o base.txt --tblout base.tbl --domtblout base.dom models.hmm targets.fa
//   z:    ... -Z 1e7 --domZ 1e7        (hits below the inclusion threshold; domains not reported)
//   t:    ... --domT 30 --incT 40 --domZ 51   (score thresholds; hits whose domains are all unreported)
//   ali:  hmmsearch --cpu 0 -o ali.txt -A ali.sto models.hmm targets.fa   (alignments, and -A)
// The test rebuilds hmmsearch's hits from the numbers of the tables (every domain of base is reported, so base.dom
// holds all of them), runs them through cudp-hmmsearch's thresholding and formatting, and compares the text.
// E-values print with two digits, so each run takes its numbers from its own tables where they are printed;
// --domZ equal to Z keeps the conditional and independent E-values one number.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <cudp/hmmer/hmm_file.hpp>

#include "hmmer/report.hpp"

namespace {

const std::string golden_dir = std::string(CUDP_SOURCE_DIR) + "/tests/apps/data/hmmsearch_golden/";

std::string slurp(const std::string& name) {
  std::ifstream in(golden_dir + name, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> fields_of(const std::string& line, std::size_t fixed, std::string& rest) {
  std::istringstream in(line);
  std::vector<std::string> f;
  std::string word;
  while (f.size() < fixed && in >> word) f.push_back(word);
  std::getline(in >> std::ws, rest);
  return f;
}

struct DomRow {
  std::string target, query;
  int tlen = 0, qlen = 0;
  double ievalue = 0;
  hmmsearch::Domain d;
};

std::vector<DomRow> read_dom(const std::string& name) {
  std::vector<DomRow> rows;
  for (const auto& line : lines_of(slurp(name))) {
    if (line.empty() || line[0] == '#') continue;
    std::string desc;
    const auto f = fields_of(line, 22, desc);
    REQUIRE(f.size() == 22);
    DomRow r;
    r.target = f[0];
    r.tlen = std::stoi(f[2]);
    r.query = f[3];
    r.qlen = std::stoi(f[5]);
    r.ievalue = std::stod(f[12]);
    r.d.bits = std::stof(f[13]);
    r.d.bias_bits = std::stof(f[14]);
    r.d.hmm_from = std::stoi(f[15]);
    r.d.hmm_to = std::stoi(f[16]);
    r.d.ali_from = std::stoi(f[17]);
    r.d.ali_to = std::stoi(f[18]);
    r.d.env_from = std::stoi(f[19]);
    r.d.env_to = std::stoi(f[20]);
    r.d.mean_posterior = std::stof(f[21]);
    rows.push_back(r);
  }
  return rows;
}

struct Run {
  std::string name;
  hmmsearch::Thresholds thresholds;
  hmmsearch::HeaderSettings header;
};

// The queries of run `run`, rebuilt from its tables (and base.dom for domains it does not print).
std::vector<hmmsearch::QueryReport> rebuild(const Run& run) {
  const auto base_domains = read_dom("base.dom");
  const auto run_domains = read_dom(run.name + ".dom");
  std::vector<hmmsearch::QueryReport> queries;

  // Query names, accessions and descriptions, and the pipeline counts, from the main text.
  for (const auto& line : lines_of(slurp(run.name + ".txt"))) {
    const auto value = [&](const char* tag) { return line.substr(std::string(tag).size()); };
    const auto count = [&] {
      std::istringstream in(line.substr(line.find(':') + 1));
      std::uint64_t n = 0;
      in >> n;
      return n;
    };
    if (line.rfind("Query:       ", 0) == 0) {
      queries.emplace_back();
      queries.back().name = line.substr(13, line.find("  [M=") - 13);
      queries.back().M = std::stoi(line.substr(line.find("[M=") + 3));
    } else if (line.rfind("Accession:   ", 0) == 0) {
      queries.back().accession = value("Accession:   ");
    } else if (line.rfind("Description: ", 0) == 0) {
      queries.back().description = value("Description: ");
    } else if (line.rfind("Query model(s):", 0) == 0) {
      queries.back().counts.models = count();
      queries.back().counts.nodes = std::stoull(line.substr(line.rfind('(') + 1));
    } else if (line.rfind("Target sequences:", 0) == 0) {
      queries.back().counts.targets = count();
      queries.back().counts.residues = std::stoull(line.substr(line.rfind('(') + 1));
    } else if (line.rfind("Passed MSV filter:", 0) == 0) {
      queries.back().counts.passed_msv = count();
    } else if (line.rfind("Passed bias filter:", 0) == 0) {
      queries.back().counts.passed_bias = count();
    } else if (line.rfind("Passed Vit filter:", 0) == 0) {
      queries.back().counts.passed_viterbi = count();
    } else if (line.rfind("Passed Fwd filter:", 0) == 0) {
      queries.back().counts.passed_forward = count();
    }
  }
  REQUIRE(queries.size() == 2);
  const double base_Z = static_cast<double>(queries[0].counts.targets);
  const double Z = run.thresholds.Z ? *run.thresholds.Z : base_Z;

  std::size_t rank = 0;
  for (const auto& line : lines_of(slurp(run.name + ".tbl"))) {
    if (line.empty() || line[0] == '#') continue;
    std::string desc;
    const auto f = fields_of(line, 18, desc);
    REQUIRE(f.size() == 18);
    hmmsearch::QueryReport* q = nullptr;
    for (auto& candidate : queries)
      if (candidate.name == f[2]) q = &candidate;
    REQUIRE(q != nullptr);
    hmmsearch::Hit h;
    h.target = rank++;
    h.name = f[0];
    h.description = desc == "-" ? "" : desc;
    h.bits = std::stof(f[5]);
    h.pre_bits = h.bits + std::stof(f[6]);
    h.lnP = std::log(std::stod(f[4]) / Z);
    h.expected_domains = std::stof(f[10]);
    h.regions = std::stoi(f[11]);
    h.clustered = std::stoi(f[12]);
    h.overlaps = std::stoi(f[13]);
    h.envelopes = std::stoi(f[14]);
    for (const auto& b : base_domains) {
      if (b.target != h.name || b.query != q->name) continue;
      h.length = static_cast<std::uint32_t>(b.tlen);
      hmmsearch::Domain d = b.d;
      d.lnP = std::log(b.ievalue / base_Z);
      for (const auto& r : run_domains)
        if (r.target == h.name && r.query == q->name && r.d.env_from == d.env_from && r.d.env_to == d.env_to)
          d.lnP = std::log(r.ievalue / Z);
      h.domains.push_back(d);
    }
    REQUIRE(static_cast<int>(h.domains.size()) == std::stoi(f[15]));
    // hmmsearch's best domain: the one whose numbers the table prints.
    const float best_bits = std::stof(f[8]);
    for (std::size_t d = 0; d < h.domains.size(); ++d)
      if (h.domains[d].bits == best_bits) {
        h.best_domain = static_cast<int>(d);
        break;
      }
    q->hits.push_back(h);
  }
  for (auto& q : queries) {
    hmmsearch::apply_thresholds(q, run.thresholds);
    q.elapsed = 1;
  }
  return queries;
}

std::string without_timing(const std::string& text) {
  std::string out;
  for (const auto& line : lines_of(text))
    if (line.rfind("# CPU time:", 0) != 0 && line.rfind("# Mc/sec:", 0) != 0) out += line + "\n";
  return out;
}

std::string without_tail(const std::string& text) {
  std::string out;
  for (const auto& line : lines_of(text)) {
    if (line == "#") break;
    out += line + "\n";
  }
  return out;
}

void check_run(const Run& run) {
  const auto queries = rebuild(run);
  std::string tbl, dom, text;
  hmmsearch::write_header(text, run.header);
  for (std::size_t i = 0; i < queries.size(); ++i) {
    hmmsearch::write_tblout(tbl, queries[i], i == 0);
    hmmsearch::write_domtblout(dom, queries[i], i == 0);
    hmmsearch::write_query(text, queries[i]);
  }
  text += "[ok]\n";

  CHECK(tbl == without_tail(slurp(run.name + ".tbl")));
  // The conditional E-values of base use domZ = 51 reported targets, which the tables do not give back exactly.
  if (run.name != "base") CHECK(dom == without_tail(slurp(run.name + ".dom")));

  // Main text: from the first option line on (the banner names the program), without the timing lines.
  const std::string golden = without_timing(slurp(run.name + ".txt"));
  if (const char* dump = std::getenv("HMMSEARCH_REPORT_DUMP")) {
    std::ofstream(std::string(dump) + "/" + run.name + ".txt") << without_timing(text);
    std::ofstream(std::string(dump) + "/" + run.name + ".dom") << dom;
  }
  const std::string ours = without_timing(text);
  const auto from_options = [](const std::string& s) { return s.substr(s.find("# query HMM file:")); };
  if (run.name != "base") {
    CHECK(from_options(ours) == from_options(golden));
  } else {
    // base: everything but the domain tables' conditional E-values.
    const auto a = lines_of(from_options(ours));
    const auto b = lines_of(from_options(golden));
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i].size() > 6 && (a[i][5] == '!' || a[i][5] == '?')) {
        CHECK(a[i].size() == b[i].size());
        continue;
      }
      CHECK(a[i] == b[i]);
    }
  }
}

hmmsearch::HeaderSettings header_for(const std::string& name) {
  hmmsearch::HeaderSettings h;
  h.version_line = "test";
  h.hmm_file = "models.hmm";
  h.seq_file = "targets.fa";
  h.output = name + ".txt";
  h.tblout = name + ".tbl";
  h.domtblout = name + ".dom";
  h.noali = true;
  h.cpu = 0;
  return h;
}

}  // namespace

TEST_CASE("tblout, domtblout and the main text match hmmsearch 3.3.2 byte for byte", "[hmmsearch]") {
  SECTION("default thresholds") {
    Run run{"base", {}, header_for("base")};
    check_run(run);
  }
  SECTION("-Z 1e7 --domZ 1e7: hits below the inclusion threshold, unreported domains") {
    Run run{"z", {}, header_for("z")};
    run.thresholds.Z = 1e7;
    run.thresholds.domZ = 1e7;
    run.header.Z = 1e7;
    run.header.domZ = 1e7;
    check_run(run);
  }
  SECTION("--domT 30 --incT 40 --domZ 51: score thresholds, hits without reported domains") {
    Run run{"t", {}, header_for("t")};
    run.thresholds.dom_by_E = false;
    run.thresholds.domT = 30;
    run.thresholds.inc_by_E = false;
    run.thresholds.incT = 40;
    run.thresholds.domZ = 51;
    run.header.domT = 30;
    run.header.incT = 40;
    run.header.domZ = 51;
    check_run(run);
  }
}

namespace {

// The alignment displays in a main text, per query and target, in order: each domain's rows with its blocks joined.
// Every row of a block starts at the column where the model row's alignment starts.
std::map<std::pair<std::string, std::string>, std::vector<cudp::hmmer::Plan7AlignmentDisplay>> read_displays(
    const std::string& name) {
  std::map<std::pair<std::string, std::string>, std::vector<cudp::hmmer::Plan7AlignmentDisplay>> out;
  std::string query, target;
  cudp::hmmer::Plan7AlignmentDisplay* display = nullptr;
  int row = 0;  // 0 model, 1 match, 2 target, 3 PP
  std::size_t offset = 0, width = 0;
  const auto ends_with = [](const std::string& line, const char* tag) {
    return line.size() >= 3 && line.compare(line.size() - 3, 3, tag) == 0;
  };
  for (const auto& line : lines_of(slurp(name))) {
    if (line.rfind("Query:       ", 0) == 0) query = line.substr(13, line.find("  [M=") - 13);
    if (line.rfind(">> ", 0) == 0) target = line.substr(3, line.find(' ', 3) - 3);
    if (line.rfind("  == domain ", 0) == 0) {
      out[{query, target}].emplace_back();
      display = &out[{query, target}].back();
      row = 0;
      continue;
    }
    if (line.empty() || line[0] != ' ') {
      if (!line.empty()) display = nullptr;
      continue;
    }
    if (display == nullptr || (row == 0 && (ends_with(line, " CS") || ends_with(line, " RF")))) continue;
    if (row == 0) {
      std::size_t p = line.find(' ', line.find_first_not_of(' '));  // after the name
      p = line.find(' ', line.find_first_not_of(' ', p));           // after the first coordinate
      offset = p + 1;
      width = line.find(' ', offset) - offset;
    }
    std::string piece = line.size() > offset ? line.substr(offset, width) : std::string();
    piece.resize(width, ' ');
    (row == 0 ? display->model : row == 1 ? display->match : row == 2 ? display->target : display->posterior) += piece;
    row = (row + 1) % 4;
  }
  return out;
}

}  // namespace

TEST_CASE("alignment displays and the -A alignment match hmmsearch 3.3.2 byte for byte", "[hmmsearch]") {
  // The hits of the base run (the same search without --noali) with the displays hmmsearch printed, through
  // cudp-hmmsearch's printing of the main text and its -A writer.
  auto queries = rebuild(Run{"base", {}, header_for("base")});
  const auto displays = read_displays("ali.txt");
  const auto models = cudp::hmmer::read_hmm_file(golden_dir + "models.hmm");
  REQUIRE(models.size() == queries.size());
  std::size_t attached = 0;
  for (std::size_t m = 0; m < queries.size(); ++m) {
    auto& q = queries[m];
    q.show_alignments = true;
    q.reference = models[m].reference;
    q.structure = models[m].consensus_structure;
    for (auto& h : q.hits) {
      const auto found = displays.find({q.name, h.name});
      std::size_t j = 0;
      for (auto& d : h.domains) {
        if (!d.reported) continue;
        REQUIRE(found != displays.end());
        REQUIRE(j < found->second.size());
        d.alignment = std::make_shared<cudp::hmmer::Plan7AlignmentDisplay>(found->second[j++]);
        ++attached;
      }
    }
  }
  CHECK(attached == 58);
  CHECK(!queries[1].structure.empty());  // fn3 has a CS line

  hmmsearch::HeaderSettings header = header_for("ali");
  header.noali = false;
  header.tblout.reset();
  header.domtblout.reset();
  header.alignment_file = "ali.sto";
  std::string text, sto;
  hmmsearch::write_header(text, header);
  for (const auto& q : queries) {
    hmmsearch::write_query(text, q);
    hmmsearch::write_alignment_note(text, hmmsearch::write_stockholm(sto, q, false, "hmmsearch (HMMER 3.3.2)"),
                                    "ali.sto");
  }
  text += "[ok]\n";

  const auto from_options = [](const std::string& s) { return s.substr(s.find("# query HMM file:")); };
  const auto ours = lines_of(from_options(without_timing(text)));
  const auto golden = lines_of(from_options(without_timing(slurp("ali.txt"))));
  REQUIRE(ours.size() == golden.size());
  for (std::size_t i = 0; i < ours.size(); ++i) {
    // As for base: the conditional E-values (domain table rows, "== domain" lines) need domZ's exact lnP.
    if (ours[i].size() > 6 && (ours[i][5] == '!' || ours[i][5] == '?')) {
      CHECK(ours[i].size() == golden[i].size());
    } else if (ours[i].rfind("  == domain ", 0) == 0) {
      CHECK(ours[i].substr(0, ours[i].find("conditional")) == golden[i].substr(0, golden[i].find("conditional")));
    } else {
      INFO("line " << i + 1);
      CHECK(ours[i] == golden[i]);
    }
  }
  CHECK(sto == slurp("ali.sto"));
}

TEST_CASE("an alignment display's blocks, names and coordinates follow p7_alidisplay_Print", "[hmmsearch]") {
  cudp::hmmer::Plan7AlignmentDisplay a;
  a.model = "ACDEF..GHI";
  a.match = "A+ E     I";
  a.target = "ACSE-wyGHI";
  a.posterior = "9*87.12345";
  // One block: names right-aligned to the longer, coordinates to the widest of the four; the model row's end
  // coordinate left-aligned.
  std::string out;
  hmmsearch::write_alignment(out, a, "m", "target", 8, 15, 120, 128, 120, "", "");
  const std::string pad(13, ' ');
  CHECK(out ==
        "       m   8 ACDEF..GHI 15 \n" + pad + "A+ E     I\n  target 120 ACSE-wyGHI 128\n" + pad + "9*87.12345 PP\n");
  // RF and CS rows (CS first): the node's annotation at match and delete columns, '.' at inserts.
  out.clear();
  hmmsearch::write_alignment(out, a, "m", "target", 8, 15, 120, 128, 0, "        abcdefghi", "        EEEHHHTTT");
  CHECK(lines_of(out)[0] == pad + "EEEHH..HTT CS");
  CHECK(lines_of(out)[1] == pad + "abcde..fgh RF");

  // A line width too small for names and coordinates: blocks of 40 columns anyway; a block of deletes only shows
  // '-' for its target coordinates.
  cudp::hmmer::Plan7AlignmentDisplay d;
  d.model = std::string(45, 'x');
  d.match = std::string(45, ' ');
  d.target = std::string(40, 'X') + "-----";
  d.posterior = std::string(40, '9') + ".....";
  out.clear();
  hmmsearch::write_alignment(out, d, "model", "t", 1, 45, 1, 40, 1, "", "");
  const std::string gap(11, ' ');
  CHECK(out == "  model  1 " + std::string(40, 'x') + " 40\n" + gap + std::string(40, ' ') + "\n      t  1 " +
                   std::string(40, 'X') + " 40\n" + gap + std::string(40, '9') + " PP\n\n  model 41 xxxxx 45\n" + gap +
                   "     \n      t  - -----  -\n" + gap + "..... PP\n");
}

TEST_CASE("hits enter the list as p7_Pipeline admits them and rank as p7_tophits_SortBySortkey", "[hmmsearch]") {
  const auto hit = [](std::size_t target, std::string name, float bits, double lnP) {
    hmmsearch::Hit h;
    h.target = target;
    h.name = std::move(name);
    h.bits = bits;
    h.lnP = lnP;
    hmmsearch::Domain d;
    d.ali_from = static_cast<int>(10 - target);
    d.bits = bits;
    h.domains.push_back(d);
    return h;
  };
  hmmsearch::Thresholds t;  // E <= 10
  std::vector<hmmsearch::Hit> hits{hit(0, "b", 50, -20), hit(1, "a", 50, -20), hit(2, "c", 60, -30),
                                   hit(9, "late", 1, std::log(1.5)),  // E(10 targets searched) = 15: not admitted
                                   hit(3, "early", 1, std::log(1.5))};  // E(4) = 6: admitted, width counts
  hits[0].domains.clear();                                              // no domain: never reported
  const auto ranked = hmmsearch::rank_hits(hits, t);
  REQUIRE(ranked.size() == 3);
  CHECK(ranked[0].name == "c");
  CHECK(ranked[1].name == "a");
  CHECK(ranked[2].name == "early");

  hmmsearch::QueryReport q;
  q.counts.targets = 10;
  q.hits = ranked;
  hmmsearch::apply_thresholds(q, t);
  CHECK(q.Z == 10);
  CHECK(q.hits[2].reported == false);  // E = 15 with all ten targets
  CHECK(q.domZ == 2);

  // With inclusion by score the sort key is the score.
  t.inc_by_E = false;
  std::vector<hmmsearch::Hit> by_score{hit(0, "x", 30, -50), hit(1, "y", 40, -10)};
  const auto r2 = hmmsearch::rank_hits(by_score, t);
  CHECK(r2[0].name == "y");
}

TEST_CASE("hits tied on sort key and name: a one-residue first alignment sorts last, as in hmmsearch",
          "[hmmsearch]") {
  const auto hit = [](std::size_t target, int from, int to) {
    hmmsearch::Hit h;
    h.target = target;
    h.name = "same";
    h.bits = -5;
    h.lnP = 0;  // P = 1: every such hit ties on the sort key
    hmmsearch::Domain d;
    d.ali_from = from;
    d.ali_to = to;
    h.domains.push_back(d);
    return h;
  };
  hmmsearch::Thresholds t;
  t.E = 1e9;
  const auto ranked = hmmsearch::rank_hits({hit(0, 3, 3), hit(1, 9, 20), hit(2, 5, 8), hit(3, 1, 1)}, t);
  REQUIRE(ranked.size() == 4);
  CHECK(ranked[0].target == 2);  // 5..8
  CHECK(ranked[1].target == 1);  // 9..20
  CHECK(ranked[2].target == 3);  // 1..1, after every longer alignment
  CHECK(ranked[3].target == 0);  // 3..3
}

TEST_CASE("the statistics block has hmmsearch's layout", "[hmmsearch]") {
  hmmsearch::QueryReport q;
  q.counts = {1, 149, 45, 6519, 45, 45, 45, 45};
  q.Z = 1000;
  q.Z_from_option = true;
  q.domZ = 5;
  q.domZ_from_option = true;
  q.F1 = 0.0123456;
  q.cpu_user = 0.01;
  q.elapsed = 3725.5;
  std::string s;
  hmmsearch::write_statistics(s, q);
  CHECK(s ==
        "Internal pipeline statistics summary:\n"
        "-------------------------------------\n"
        "Query model(s):                            1  (149 nodes)\n"
        "Target sequences:                         45  (6519 residues searched)\n"
        "Passed MSV filter:                        45  (1); expected 0.6 (0.0123456)\n"
        "Passed bias filter:                       45  (1); expected 0.6 (0.0123456)\n"
        "Passed Vit filter:                        45  (1); expected 0.0 (0.001)\n"
        "Passed Fwd filter:                        45  (1); expected 0.0 (1e-05)\n"
        "Initial search space (Z):               1000  [as set by --Z on cmdline]\n"
        "Domain search space  (domZ):               5  [as set by --domZ on cmdline]\n"
        "# CPU time: 0.01u 0.00s 00:00:00.01 Elapsed: 01:02:05.50\n"
        "# Mc/sec: 0.00\n");
}
