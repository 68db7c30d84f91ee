// cudp-hmmsearch's model loop (run.cpp) with the device filters emulated on the host: with the database resident on
// the GPU, the next model's MSV filter runs on a thread of its own while the current model is searched. Every
// output must be the host backend's, byte for byte but for the lines that name the backend and give times.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <cudp/hmmer/hmm_file.hpp>
#include <cudp/hmmer/plan7_alphabet.hpp>

#include "hmmer/database.hpp"
#include "hmmer/options.hpp"
#include "hmmer/run.hpp"
#include "../support/temp_dir.hpp"
#include "../support/test_data.hpp"

namespace hmmsearch {
extern std::mutex emulated_msv_lock;
extern std::vector<std::thread::id> emulated_msv_threads, emulated_forward_threads;
extern std::atomic<bool> emulated_envelopes_fail;
}  // namespace hmmsearch

namespace {

// The lines that differ between backends and runs (times, the backend's name, the thread count, and the tables'
// dates, which differ when the two runs straddle a second) left out.
std::string without_run_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("# CPU time", 0) == 0 || line.rfind("# Mc/sec", 0) == 0 || line.rfind("# cudp backend", 0) == 0 ||
        line.rfind("# number of worker threads", 0) == 0 || line.rfind("# Date:", 0) == 0)
      continue;
    out += line + '\n';
  }
  return out;
}

}  // namespace

TEST_CASE("cudp-hmmsearch: each model's MSV filter run during the previous model's search gives the host's outputs",
          "[hmmsearch][hmmer-examples]") {
  const cudp::test::TempDir dir;
  std::string models_text;
  for (const char* name : {"tutorial/globins4.hmm", "tutorial/fn3.hmm", "tutorial/Pkinase.hmm", "tutorial/globins4.hmm"})
    models_text += cudp::test::file_bytes(cudp::test::hmmer_examples_file(name));
  const std::string models_file = dir.file("models.hmm", models_text);
  const std::string db_file = cudp::test::hmmer_examples_file("tutorial/globins45.fa");
  const std::string tbl = dir / "hits.tbl", domtbl = dir / "hits.domtbl";
  const char* argv[] = {"cudp-hmmsearch", "--tblout", tbl.c_str(), "--domtblout", domtbl.c_str(), "-E", "100",
                        models_file.c_str(), db_file.c_str()};
  const auto options = hmmsearch::parse_options(static_cast<int>(std::size(argv)), argv);
  REQUIRE(options);
  const auto models = cudp::hmmer::read_hmm_file(models_file);
  REQUIRE(models.size() == 4);
  const auto db = hmmsearch::load_database(db_file, cudp::hmmer::plan7_alphabet_of(models.front().alphabet), "models.hmm");

  hmmsearch::Searcher host{db, nullptr, 2, {}, "host, 2 threads"};
  hmmsearch::Searcher device{db, std::make_unique<hmmsearch::DeviceFilters>(cudp::engine::view_of(db)), 2, {},
                             "emulated GPU, 2 threads"};
  {
    const std::lock_guard<std::mutex> hold(hmmsearch::emulated_msv_lock);
    hmmsearch::emulated_msv_threads.clear();
    hmmsearch::emulated_forward_threads.clear();
  }
  const hmmsearch::RunOutputs on_host = hmmsearch::search_models(*options, models, host, "/", false);
  const hmmsearch::RunOutputs ahead = hmmsearch::search_models(*options, models, device, "/", false);
  CHECK(without_run_lines(ahead.text) == without_run_lines(on_host.text));
  CHECK(without_run_lines(ahead.tbl) == without_run_lines(on_host.tbl));
  CHECK(without_run_lines(ahead.domtbl) == without_run_lines(on_host.domtbl));
  CHECK(on_host.tbl.find("globins4") != std::string::npos);  // the comparison holds hits
  CHECK(on_host.tbl.find("# Date:") != std::string::npos);   // and the tables' trailers, less their dates

  // One MSV pass a model: the first on the searching thread, the three others on threads of their own.
  const std::lock_guard<std::mutex> hold(hmmsearch::emulated_msv_lock);
  REQUIRE(hmmsearch::emulated_msv_threads.size() == 4);
  CHECK(hmmsearch::emulated_msv_threads[0] == std::this_thread::get_id());
  for (std::size_t m = 1; m < 4; ++m) CHECK(hmmsearch::emulated_msv_threads[m] != std::this_thread::get_id());
  // Each model's later stages (from its Forward filter on) on a thread of their own, beside the next model's
  // filters: the run took the two-halves path (the globins models have targets there).
  REQUIRE(hmmsearch::emulated_forward_threads.size() >= 2);
  for (const std::thread::id id : hmmsearch::emulated_forward_threads) CHECK(id != std::this_thread::get_id());
}

TEST_CASE("cudp-hmmsearch: an error in a model's later stages, run beside the next model's filters, stops the run",
          "[hmmsearch][hmmer-examples]") {
  const cudp::test::TempDir dir;
  std::string models_text;
  for (const char* name : {"tutorial/globins4.hmm", "tutorial/fn3.hmm", "tutorial/globins4.hmm"})
    models_text += cudp::test::file_bytes(cudp::test::hmmer_examples_file(name));
  const std::string models_file = dir.file("models.hmm", models_text);
  const std::string db_file = cudp::test::hmmer_examples_file("tutorial/globins45.fa");
  const char* argv[] = {"cudp-hmmsearch", models_file.c_str(), db_file.c_str()};
  const auto options = hmmsearch::parse_options(static_cast<int>(std::size(argv)), argv);
  REQUIRE(options);
  const auto models = cudp::hmmer::read_hmm_file(models_file);
  const auto db = hmmsearch::load_database(db_file, cudp::hmmer::plan7_alphabet_of(models.front().alphabet), "models.hmm");
  hmmsearch::Searcher device{db, std::make_unique<hmmsearch::DeviceFilters>(cudp::engine::view_of(db)), 2, {},
                             "emulated GPU, 2 threads"};
  // globins4's hits reach the envelopes, where the emulated device fails; the error comes out of the run.
  hmmsearch::emulated_envelopes_fail = true;
  CHECK_THROWS_WITH(hmmsearch::search_models(*options, models, device, "/", false),
                    Catch::Contains("an emulated device error"));
  hmmsearch::emulated_envelopes_fail = false;
}
