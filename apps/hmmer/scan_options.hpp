#pragma once
// cudp-hmmscan's command line: hmmscan 3.3.2's options, read by cudp-hmmsearch's parser (the same names, value
// ranges and incompatibilities) after hmmscan's own words are mapped onto it: --qformat is hmmsearch's --tformat
// (the sequences are the side that the searches run over), hmmsearch's -A does not exist, and --daemon and
// --connect serve profile databases instead of sequence databases (scan_daemon.hpp).
#include <optional>
#include <string>
#include <vector>

#include "options.hpp"

namespace hmmscan {

inline const char* usage_text() {
  return "Usage: cudp-hmmscan [options] <hmmdb> <seqfile>\n"
         "       cudp-hmmscan --daemon <socket> [--cpu <n>] [--backend <s>] [--gpus <s>] <hmmdb> [<hmmdb>...]\n"
         "       cudp-hmmscan --connect <socket> [options] <hmmdb> <seqfile>\n"
         "\n"
         "Searches every sequence of <seqfile> (FASTA, plain or .gz, or a cudp-makedb database) against every profile\n"
         "of <hmmdb> (HMMER3 text format, plain or .gz; no hmmpress needed), with HMMER 3.3.2 hmmscan's pipeline,\n"
         "scores, thresholds and output formats.\n"
         "\n"
         "Basic options:\n"
         "  -h, --help       : show this help\n"
         "  --version        : the version and what this build has\n"
         "\n"
         "Options controlling output:\n"
         "  -o <f>           : direct output to file <f>, not stdout\n"
         "  --tblout <f>     : save parseable table of per-sequence hits to file <f>\n"
         "  --domtblout <f>  : save parseable table of per-domain hits to file <f>\n"
         "  --pfamtblout <f> : save table of hits and domains to file, in Pfam format <f>\n"
         "  --acc            : prefer accessions over names in output\n"
         "  --noali          : don't output alignments, so output is smaller\n"
         "  --notextw        : unlimit ASCII text output line width\n"
         "  --textw <n>      : set max width of ASCII text output lines  [120]  (n>=120)\n"
         "\n"
         "Options controlling reporting thresholds:\n"
         "  -E <x>     : report models <= this E-value threshold in output  [10.0]  (x>0)\n"
         "  -T <x>     : report models >= this score threshold in output\n"
         "  --domE <x> : report domains <= this E-value threshold in output  [10.0]  (x>0)\n"
         "  --domT <x> : report domains >= this score cutoff in output\n"
         "\n"
         "Options controlling inclusion (significance) thresholds:\n"
         "  --incE <x>    : consider models <= this E-value threshold as significant\n"
         "  --incT <x>    : consider models >= this score threshold as significant\n"
         "  --incdomE <x> : consider domains <= this E-value threshold as significant\n"
         "  --incdomT <x> : consider domains >= this score threshold as significant\n"
         "\n"
         "Options for model-specific thresholding:\n"
         "  --cut_ga : use profile's GA gathering cutoffs to set all thresholding\n"
         "  --cut_nc : use profile's NC noise cutoffs to set all thresholding\n"
         "  --cut_tc : use profile's TC trusted cutoffs to set all thresholding\n"
         "\n"
         "Options controlling acceleration heuristics:\n"
         "  --max    : Turn all heuristic filters off (less speed, more power)\n"
         "  --F1 <x> : MSV threshold: promote hits w/ P <= F1  [0.02]\n"
         "  --F2 <x> : Vit threshold: promote hits w/ P <= F2  [1e-3]\n"
         "  --F3 <x> : Fwd threshold: promote hits w/ P <= F3  [1e-5]\n"
         "  --nobias : turn off composition bias filter\n"
         "\n"
         "Other expert options:\n"
         "  --nonull2     : turn off biased composition score corrections\n"
         "  -Z <x>        : set # of comparisons done, for E-value calculation\n"
         "  --domZ <x>    : set # of significant seqs, for domain E-value calculation\n"
         "  --seed <n>    : set RNG seed to <n>  [42]  (n>=1)\n"
         "  --qformat <s> : assert input <seqfile> is in format <s>: only fasta\n"
         "                  (a cudp-makedb file is recognised anyway)\n"
         "  --cpu <n>     : number of host threads  [all cores]  (n>=0; 0 runs on the calling thread only)\n"
         "  --backend <s> : auto, cuda or host  [auto]: auto uses the GPU filters when a CUDA device is present\n"
         "  --gpus <s>    : number of GPUs, or all: each holds the sequences and the models are shared out\n"
         "                  [all that CUDA_VISIBLE_DEVICES lets through; one per process under mpirun]\n"
         "\n"
         "Resident profile databases (a scan costs no start-up: no CUDA context, no <hmmdb> read):\n"
         "  --daemon <s>  : read each <hmmdb> once, then serve scans on the local socket <s> until SIGTERM or SIGINT\n"
         "  --connect <s> : run this scan in the daemon listening on <s>; <hmmdb> must be one of its databases and\n"
         "                  <seqfile> FASTA. Output files are written here, exactly as a one-shot run writes them\n";
}

struct Options {
  hmmsearch::Options search;  // hmm_file is <hmmdb>, seq_file <seqfile>; tformat holds --qformat
  std::vector<std::string> given;  // the options as hmmscan names them, for the tables' "Option settings" line
};

// nullopt for -h/--help.
inline std::optional<Options> parse_options(int argc, const char* const* argv) {
  std::vector<std::string> words{argv[0]};
  bool in_options = true;
  for (int a = 1; a < argc; ++a) {
    std::string w = argv[a];
    // Option values are words too: only "--" ends the scan for hmmscan's names (the parser checks the rest).
    if (w == "--") in_options = false;
    if (in_options && w.rfind("--", 0) == 0) {
      const std::string name = w.substr(0, w.find('='));
      const std::string rest = w.substr(name.size());
      // hmmscan's only long option that hmmsearch lacks; prefixes of it are unique among hmmscan's options.
      if (name.size() > 2 && std::string("--qformat").rfind(name, 0) == 0) w = "--tformat" + rest;
      if (name.size() > 2 && std::string("--tformat").rfind(name, 0) == 0)
        throw hmmsearch::UsageError("unknown option " + name);
    } else if (in_options && w.size() >= 2 && w[0] == '-' && w[1] == 'A') {
      throw hmmsearch::UsageError("unknown option -A");
    }
    words.push_back(w);
  }
  std::vector<const char*> args;
  for (const std::string& w : words) args.push_back(w.c_str());
  std::optional<hmmsearch::Options> parsed;
  try {
    parsed = hmmsearch::parse_command_line(static_cast<int>(args.size()), args.data(), {"<hmmdb>", "<seqfile>", 1});
  } catch (const hmmsearch::UsageError& e) {  // the parser knows --qformat by hmmsearch's name for it
    std::string message = e.what();
    for (std::size_t at; (at = message.find("--tformat")) != std::string::npos;) message.replace(at, 9, "--qformat");
    throw hmmsearch::UsageError(message);
  }
  if (!parsed) return std::nullopt;
  Options o{*parsed, parsed->given};
  for (std::string& w : o.given)
    if (w == "--tformat") w = "--qformat";
  return o;
}

}  // namespace hmmscan
