#pragma once
// Installed data some tests read: hmmer-examples (HMMER's models and sequences), ncbi-data (BLAST's matrix files),
// emboss-data (EMBOSS's matrix files), hmmconvert and hmmbuild (package hmmer). A test case that reads one carries
// its tag ([hmmer-examples], [ncbi-data], [emboss-data], [hmmconvert], [hmmbuild]) and declares it in CMake
// (cudp_add_host_test ... DATA ...). Where configure found it, CMake defines its location and the case runs: a file
// missing then fails the case. Where configure did not find it, the tagged cases are left out of the run and ctest
// reports a skipped test in their place; they never pass unrun.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

namespace cudp::test {

namespace detail {
inline std::string existing_file(const std::string& path) {
  INFO("test data file " << path);
  REQUIRE(std::filesystem::exists(path));
  return path;
}
}  // namespace detail

// A file of hmmer-examples, e.g. "tutorial/globins4.hmm"; fails the case where it is missing.
inline std::string hmmer_examples_file(const std::string& relative) {
#ifdef CUDP_HMMER_EXAMPLES
  return detail::existing_file(std::string(CUDP_HMMER_EXAMPLES) + "/" + relative);
#else
  FAIL("built without hmmer-examples: a case that reads " << relative << " must carry the tag [hmmer-examples]");
  return {};
#endif
}

// A matrix file of ncbi-data, e.g. "BLOSUM62".
inline std::string ncbi_data_file(const std::string& relative) {
#ifdef CUDP_NCBI_DATA
  return detail::existing_file(std::string(CUDP_NCBI_DATA) + "/" + relative);
#else
  FAIL("built without ncbi-data: a case that reads " << relative << " must carry the tag [ncbi-data]");
  return {};
#endif
}

// A matrix file of emboss-data, e.g. "EDNAFULL".
inline std::string emboss_data_file(const std::string& relative) {
#ifdef CUDP_EMBOSS_DATA
  return detail::existing_file(std::string(CUDP_EMBOSS_DATA) + "/" + relative);
#else
  FAIL("built without emboss-data: a case that reads " << relative << " must carry the tag [emboss-data]");
  return {};
#endif
}

// The hmmconvert program.
inline std::string hmmconvert_program() {
#ifdef CUDP_HMMCONVERT
  return detail::existing_file(CUDP_HMMCONVERT);
#else
  FAIL("built without hmmconvert: a case that runs it must carry the tag [hmmconvert]");
  return {};
#endif
}

// The hmmbuild program (package hmmer).
inline std::string hmmbuild_program() {
#ifdef CUDP_HMMBUILD
  return detail::existing_file(CUDP_HMMBUILD);
#else
  FAIL("built without hmmbuild: a case that runs it must carry the tag [hmmbuild]");
  return {};
#endif
}

}  // namespace cudp::test
