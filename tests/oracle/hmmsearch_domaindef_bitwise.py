#!/usr/bin/env python3
"""Compares cudp's domain definition and bias filter with HMMER 3.3.2's own, bit for bit, inside HMMER's code.

hmmsearch prints scores to 0.1 bit; domain definition samples 200 stochastic tracebacks per multi-domain region,
so two implementations that agree at that precision can still disagree at a float tie. This check runs HMMER's
real p7_Pipeline: the hmmer-examples package ships HMMER's unit-test programs with debug information, and
hmmpgmd2msa_utest calls p7_Pipeline on sequences it samples from a model. Under gdb, at its first p7_Pipeline
call, the script replaces the sequence with one of ours (and the target-length settings with its length, every
filter passing as with --max), lets the pipeline run, and reads back the hit HMMER stored: expected domain count,
regions, clustered regions, overlaps, envelopes, and per domain the envelope, alignment and model coordinates and
the raw float bits of the envelope score and of the null2 correction. A second pass stops the pipeline where
p7_bg_FilterScore's result (filtersc) is live and reads its bits. The driver prints the same numbers (--bits); they
must be identical.

The sequences: per protein model of hmmsearch_pipeline.py's set, the targets with clustered regions (sampled
tracebacks) first, then a few others.

Usage: hmmsearch_domaindef_bitwise.py DRIVER EXAMPLES_DIR [HMMSEARCH [HMMEMIT]] [--per-model N] [--gdb GDB]
Exit status 0 when everything is identical, 1 otherwise. Without --gdb, 77 (skipped) when gdb is not on PATH or
the unit-test program is missing; with --gdb (CMake passes it where it found gdb) that is a failure (1).
"""
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hmmsearch_forward import fasta_records, take_option, tool_arguments  # noqa: E402
from hmmsearch_pipeline import MODELS, PROTEIN_TARGETS, build_targets  # noqa: E402

AMINO_CODES = "ACDEFGHIKLMNPQRSTVWY-BJZOUX*~"
UTEST = "src/hmmpgmd2msa_utest.gz"


def stop_on_sequence(codes, model_path):
    """gdb commands that stop hmmpgmd2msa_utest at HMMER's pipeline and put our sequence in place of its own."""
    L = len(codes)
    g = ["set pagination off", "set confirm off",
         "break 'p7_Pipeline.constprop.0.isra.0'",
         "run %s" % model_path,
         "set $buf = (unsigned char *) malloc(%d)" % (L + 2),
         "set $buf[0] = 255"]
    g += ["set $buf[%d] = %d" % (i + 1, c) for i, c in enumerate(codes)]
    return g + ["set $buf[%d] = 255" % (L + 1), "set sq->dsq = $buf", "set sq->n = %d" % L]


def gdb_script(codes, model_path):
    """Runs HMMER's pipeline on our sequence inside hmmpgmd2msa_utest and prints its hit."""
    L = len(codes)
    g = stop_on_sequence(codes, model_path)
    g += ["set om->L = %d" % L,
          # p7_oprofile_ReconfigLength's N, J, C moves and loops for length L (multihit: 3/(L+3))
          "set var om->xf[1][0] = (float)3.0/((float)%d + (float)3.0)" % L,
          "set var om->xf[1][1] = (float)1.0 - om->xf[1][0]",
          "set var om->xf[2][0] = om->xf[1][0]", "set var om->xf[2][1] = om->xf[1][1]",
          "set var om->xf[3][0] = om->xf[1][0]", "set var om->xf[3][1] = om->xf[1][1]",
          "set var bg->p1 = (float)%d / (float)%d" % (L, L + 1),
          "set var pli->F1 = 1.0", "set var pli->F2 = 1.0", "set var pli->F3 = 1.0",
          "set var pli->do_biasfilter = 0",
          "set $th = hitlist", "set $n0 = hitlist->N",
          "finish",
          "if $th->N > $n0",
          "  set $h = $th->hit[$th->N - 1]",
          '  printf "bits-hit %08x %d %d %d %d %d\\n", *(unsigned int*)&$h->nexpected, $h->nregions, '
          '$h->nclustered, $h->noverlaps, $h->nenvelopes, $h->ndom',
          "  set $d = 0",
          "  while $d < $h->ndom",
          '    printf "bits-domain %d %d %d %d %d %d %08x %08x\\n", $h->dcl[$d].ienv, $h->dcl[$d].jenv, '
          '$h->dcl[$d].iali, $h->dcl[$d].jali, $h->dcl[$d].ad->hmmfrom, $h->dcl[$d].ad->hmmto, '
          '*(unsigned int*)&$h->dcl[$d].envsc, *(unsigned int*)&$h->dcl[$d].domcorrection',
          "    set $d = $d + 1",
          "  end",
          "else",
          '  printf "no-hit\\n"',
          "end",
          "kill", "quit"]
    return "\n".join(g) + "\n"


def bias_script(codes, model_path, address):
    """Stops HMMER's pipeline on our sequence where the bias filter's score is live and prints its bits."""
    L = len(codes)
    g = stop_on_sequence(codes, model_path)
    # p7_bg_SetLength for length L
    g += ["set var bg->p1 = (float)%d / (float)%d" % (L, L + 1),
          "set var bg->fhmm->t[0][0] = bg->p1", "set var bg->fhmm->t[0][1] = (float)1.0 - bg->p1",
          "set var pli->F1 = 1.0", "set var pli->do_biasfilter = 1",
          "break *%s" % address, "continue",
          'printf "bits-bias %08x\\n", *(unsigned int*)&filtersc',
          "kill", "quit"]
    return "\n".join(g) + "\n"


def filtersc_address(gdb, utest, model_path, work):
    """Where p7_Pipeline's filtersc first becomes live (right after p7_bg_FilterScore), from the debug information."""
    script = os.path.join(work, "scope.gdb")
    with open(script, "w") as f:
        f.write("set pagination off\nset confirm off\nbreak 'p7_Pipeline.constprop.0.isra.0'\nrun %s\n"
                "info scope 'p7_Pipeline.constprop.0.isra.0'\nkill\nquit\n" % model_path)
    out = subprocess.run([gdb, "-batch", "-x", script, utest], capture_output=True, text=True, timeout=300).stdout
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Symbol filtersc"):
            for later in lines[i + 1:i + 4]:
                if "Range 0x" in later:
                    return later.split("Range ")[1].split("-")[0]
    return None


def ours_by_target(driver, model, targets):
    out = subprocess.run([driver, model, targets, "--max", "--bits"], check=True, capture_output=True,
                         text=True).stdout
    hits, clustered, bias = {}, {}, {}
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] == "bits-bias":
            bias[f[2]] = "bits-bias " + f[3]
        elif f[0] == "bits-hit":
            hits[f[2]] = ["bits-hit " + " ".join(f[3:9])]
            clustered[f[2]] = int(f[5]) > 0
        elif f[0] == "bits-domain":
            hits[f[2]].append("bits-domain " + " ".join(f[3:]))
    return hits, clustered, bias


def main():
    args = list(sys.argv)
    per_model = int(take_option(args, "--per-model") or 3)
    required_gdb = take_option(args, "--gdb")
    tools = tool_arguments(args, __doc__)
    if isinstance(tools, int):
        return tools
    driver, examples, _, hmmemit_path = tools
    gdb = required_gdb if required_gdb else shutil.which("gdb")
    utest_gz = os.path.join(examples, UTEST)
    if not gdb or not os.access(gdb, os.X_OK) or not os.path.exists(utest_gz):
        if required_gdb:
            print("FAIL: gdb (%s) or %s is missing, but this build was configured with gdb" % (required_gdb, utest_gz))
            return 1
        print("gdb or %s missing: skipped" % utest_gz)
        return 77
    compared, identical, failures = 0, 0, []
    bias_compared, bias_identical = 0, 0
    with tempfile.TemporaryDirectory() as work:
        utest = os.path.join(work, "hmmpgmd2msa_utest")
        with gzip.open(utest_gz, "rb") as f, open(utest, "wb") as out:
            out.write(f.read())
        os.chmod(utest, 0o755)
        for model_rel, target_files, _ in MODELS:
            if target_files is not PROTEIN_TARGETS:
                continue  # the unit test reads protein models only
            model = os.path.join(work, "model.hmm")
            with gzip.open(os.path.join(examples, model_rel), "rb") if model_rel.endswith(".gz") else \
                    open(os.path.join(examples, model_rel), "rb") as f, open(model, "wb") as out:
                out.write(f.read())
            targets = os.path.join(work, "targets.fa")
            build_targets(hmmemit_path, model, examples, target_files, targets, False)
            sequences = dict(fasta_records(open(targets).read()))
            hits, clustered, bias = ours_by_target(driver, model, targets)
            names = [n for n in hits if clustered[n] and len(sequences[n]) <= 3000][:per_model]
            names += [n for n in hits if not clustered[n] and len(sequences[n]) <= 3000][:max(1, per_model // 3)]
            for name in names:
                script = os.path.join(work, "run.gdb")
                with open(script, "w") as f:
                    f.write(gdb_script([AMINO_CODES.index(c) for c in sequences[name].upper()], model))
                out = subprocess.run([gdb, "-batch", "-x", script, utest], capture_output=True, text=True,
                                     timeout=600).stdout
                ref = [l.strip() for l in out.splitlines() if l.startswith("bits-") or l.startswith("no-hit")]
                compared += 1
                if ref == hits[name]:
                    identical += 1
                else:
                    failures.append("%s %s:\n  ours %s\n  HMMER %s" % (model_rel, name, hits[name], ref))
            # The bias filter on a few targets of each kind, biased ones (shuffled model samples, low complexity)
            # included.
            address = filtersc_address(gdb, utest, model, work)
            kinds = ["iid-", "shuf-core-", "lowc-"]
            bias_names = [next((n for n in bias if n.startswith(k) and len(sequences[n]) <= 3000), None) for k in kinds]
            for name in [n for n in bias_names if n]:
                if address is None:
                    failures.append("%s: filtersc not found in the debug information" % model_rel)
                    break
                script = os.path.join(work, "bias.gdb")
                with open(script, "w") as f:
                    f.write(bias_script([AMINO_CODES.index(c) for c in sequences[name].upper()], model, address))
                out = subprocess.run([gdb, "-batch", "-x", script, utest], capture_output=True, text=True,
                                     timeout=600).stdout
                ref = [l.strip() for l in out.splitlines() if l.startswith("bits-bias")]
                bias_compared += 1
                if ref == [bias[name]]:
                    bias_identical += 1
                else:
                    failures.append("%s %s bias filter: ours %s, HMMER %s" % (model_rel, name, bias[name], ref))
            print("%-34s sequences %d (clustered %d)" % (model_rel, len(names), sum(clustered[n] for n in names)))
    for failure in failures:
        print("MISMATCH " + failure)
    print("sequences compared bit for bit with HMMER's p7_Pipeline: %d, identical %d; bias filter scores %d, "
          "identical %d" % (compared, identical, bias_compared, bias_identical))
    return 1 if failures or compared == 0 or bias_compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
