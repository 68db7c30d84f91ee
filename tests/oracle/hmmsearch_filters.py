#!/usr/bin/env python3
"""Compares cudp's reference MSV/SSV and Viterbi filters with hmmsearch 3.3.2's own filters.

The targets are those of hmmsearch_forward.py (example sequences of the model's alphabet plus hmmemit samples).
For each model, hmmsearch runs with the bias filter off (--nobias) under several F1/F2 thresholds, and the
"Passed MSV filter" and "Passed Vit filter" counts of its pipeline statistics must equal the counts of the driver,
which runs the same pipeline stages (MSV P-value against F1; Viterbi filter, run only when the MSV P-value is
above F2, against F2) with the scalar reference filters. The counts are exact: any rounding difference in a
filter score near a threshold shows up.

Counts alone let errors cancel, so every target's raw scores are compared too, bit for bit: the driver's MSV,
Viterbi and Forward parser scores in nats (--raw: every filter on every target) against those of HMMER's own
p7_MSVFilter, p7_ViterbiFilter and p7_ForwardParser, which hmmer_filter_scores_gdb.py reads out of HMMER's
p7_Pipeline under gdb, in the hmmpgmd2msa_utest program of hmmer-examples (built with debug information).

Usage: hmmsearch_filters.py DRIVER EXAMPLES_DIR [HMMSEARCH [HMMEMIT]] [--gdb GDB]
With --gdb (CMake passes it where it found gdb), the per-target comparison is required: a missing gdb or utest
is a failure. Without it, gdb is looked up on PATH; when it or the utest is missing, the counts are still
compared and the exit status is 77 (skipped) if they agree.
Exit status 0 when every count and every score agrees, 1 otherwise.
"""
import gzip
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hmmsearch_forward import MODELS, build_targets, fasta_records, pipeline_counts, take_option, tool_arguments  # noqa: E402

UTEST = "src/hmmpgmd2msa_utest.gz"
GDB_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hmmer_filter_scores_gdb.py")
# Easel's digital codes (esl_alphabet.c), in code order.
DIGITAL = {"amino": "ACDEFGHIKLMNPQRSTVWY-BJZOUX*~", "dna": "ACGT-RYMKSWHBVDN*~"}
ESL_OK, ESL_ERANGE = 0, 16

# (label, F1, F2): hmmsearch's defaults; looser MSV thresholds (F2 = 1 lets every MSV survivor through); every
# target reaching the Viterbi filter (F1 = 1) under several F2. Each threshold samples the score distribution at
# another point, so that a systematic rounding difference cannot hide behind one lucky count.
SETTINGS = [("default", 0.02, 1e-3), ("F1=0.1,F2=1", 0.1, 1.0), ("F1=0.5,F2=1", 0.5, 1.0),
            ("F1=1,F2=1e-3", 1.0, 1e-3), ("F1=1,F2=0.02", 1.0, 0.02), ("F1=1,F2=0.2", 1.0, 0.2)]



def hmmsearch_counts(hmmsearch, model, targets, F1, F2, work):
    out = os.path.join(work, "search.out")
    subprocess.run([hmmsearch, "--nobias", "--F1", str(F1), "--F2", str(F2), "--F3", "1", "--cpu", "1",
                    "--noali", "-o", out, model, targets], check=True)
    counts = pipeline_counts(out)
    return counts["Passed MSV filter"], counts["Passed Vit filter"]


def driver_counts(driver, model, targets, F1, F2):
    out = subprocess.run([driver, model, targets, repr(F1), repr(F2)], check=True, capture_output=True,
                         text=True).stdout
    fields = out.split()
    return int(fields[2]), int(fields[3])


def model_alphabet(model):
    text = (gzip.open(model, "rt") if model.endswith(".gz") else open(model)).read()
    for line in text.splitlines():
        if line.startswith("ALPH"):
            return line.split()[1].lower()
    raise SystemExit("%s: no ALPH line" % model)


def hmmer_scores(gdb, utest, model, targets, work):
    """{target: (msv_status, msv_bits, vit_status, vit_bits, fwd_status, fwd_bits)} from HMMER's own filters."""
    alphabet = model_alphabet(model)
    codes_path, out_path = os.path.join(work, "targets.codes"), os.path.join(work, "hmmer.scores")
    # The utest reads a plain model file.
    plain = os.path.join(work, "model.hmm")
    with (gzip.open(model, "rb") if model.endswith(".gz") else open(model, "rb")) as f, open(plain, "wb") as out:
        out.write(f.read())
    symbols = DIGITAL[alphabet]
    with open(codes_path, "w") as f:
        for name, seq in fasta_records(open(targets).read()):
            bad = sorted(set(seq.upper()) - set(symbols))
            if bad:
                raise SystemExit("%s %s: residues %s are not in Easel's %s alphabet" % (model, name, bad, alphabet))
            f.write("%s\t%s\n" % (name, bytes(symbols.index(c) for c in seq.upper()).hex()))
    env = dict(os.environ, ORACLE_MODEL=plain, ORACLE_TARGETS=codes_path, ORACLE_OUT=out_path)
    if alphabet == "dna":
        env["ORACLE_DNA"] = "1"
    elif alphabet != "amino":
        raise SystemExit("%s: alphabet %s is not handled" % (model, alphabet))
    run = subprocess.run([gdb, "-batch", "-x", GDB_SCRIPT, utest], env=env, capture_output=True, text=True,
                         timeout=1200)
    scores = {}
    if os.path.exists(out_path):
        for line in open(out_path):
            f = line.split()
            scores[f[0]] = (int(f[1]), f[2], int(f[3]), f[4], int(f[5]), f[6])
    if "Traceback" in run.stderr or "Error" in run.stderr or not scores:
        raise SystemExit("%s: gdb on %s failed:\n%s\n%s" % (model, utest, run.stdout[-3000:], run.stderr[-3000:]))
    return scores


def driver_scores(driver, model, targets):
    out = subprocess.run([driver, model, targets, "1", "1", "--raw"], check=True, capture_output=True,
                         text=True).stdout
    scores = {}
    for line in out.splitlines():
        f = line.split("\t")
        scores[f[1]] = (int(f[3]), f[4], int(f[5]), f[6], f[7])
    return scores


def nats(bits):
    return struct.unpack("<f", bytes.fromhex(bits)[::-1])[0]


def compare_scores(model_rel, theirs, ours):
    """Per target and filter: the status and the float bits of the score. Returns (compared, failures)."""
    failures, compared = [], 0
    if set(theirs) != set(ours):
        failures.append("%s: targets scored only by HMMER %s, only by the driver %s" %
                        (model_rel, sorted(set(theirs) - set(ours)), sorted(set(ours) - set(theirs))))
    for name in sorted(set(theirs) & set(ours)):
        t_msv_status, t_msv, t_vit_status, t_vit, t_fwd_status, t_fwd = theirs[name]
        o_msv_status, o_msv, o_vit_status, o_vit, o_fwd = ours[name]
        statuses = {ESL_OK: 0, ESL_ERANGE: 1}
        for column, t_status, t_bits, o_status, o_bits in (
                ("MSV", t_msv_status, t_msv, o_msv_status, o_msv),
                ("Viterbi", t_vit_status, t_vit, o_vit_status, o_vit),
                ("Forward", t_fwd_status, t_fwd, 1 if nats(o_fwd) == float("inf") else 0, o_fwd)):
            compared += 1
            if statuses.get(t_status) != o_status or t_bits != o_bits:
                failures.append("%s %s %s filter: HMMER status %d score %s (%.9g nats), driver status %d score %s "
                                "(%.9g nats)" % (model_rel, name, column, t_status, t_bits, nats(t_bits), o_status,
                                                 o_bits, nats(o_bits)))
    return compared, failures


def main():
    args = list(sys.argv)
    required_gdb = take_option(args, "--gdb")
    tools = tool_arguments(args, __doc__)
    if isinstance(tools, int):
        return tools
    driver, examples, hmmsearch, hmmemit_path = tools
    gdb = required_gdb if required_gdb else shutil.which("gdb")
    utest_gz = os.path.join(examples, UTEST)
    have_gdb = bool(gdb) and os.access(gdb, os.X_OK) and os.path.exists(utest_gz)
    if required_gdb and not have_gdb:
        print("FAIL: gdb (%s) or %s is missing, but this build was configured with gdb: the per-target filter "
              "scores cannot be compared with HMMER's" % (required_gdb, utest_gz))
        return 1
    failures, compared, agreed, total_targets = [], 0, 0, 0
    scores_compared = 0
    with tempfile.TemporaryDirectory() as work:
        utest = os.path.join(work, "hmmpgmd2msa_utest")
        if have_gdb:
            with gzip.open(utest_gz, "rb") as f, open(utest, "wb") as out:
                out.write(f.read())
            os.chmod(utest, 0o755)
        for model_rel, target_files in MODELS:
            model = os.path.join(examples, model_rel)
            targets = os.path.join(work, "targets.fa")
            count = build_targets(hmmemit_path, model, examples, target_files, targets)
            total_targets += count
            if have_gdb:
                n, model_failures = compare_scores(model_rel, hmmer_scores(gdb, utest, model, targets, work),
                                                   driver_scores(driver, model, targets))
                if n < 3 * count:
                    model_failures.append("%s: %d filter scores compared for %d targets" % (model_rel, n, count))
                scores_compared += n
                failures += model_failures
            line = []
            for label, F1, F2 in SETTINGS:
                theirs = hmmsearch_counts(hmmsearch, model, targets, F1, F2, work)
                ours = driver_counts(driver, model, targets, F1, F2)
                for stage, t, o in zip(("MSV", "Vit"), theirs, ours):
                    compared += 1
                    if t == o:
                        agreed += 1
                    else:
                        failures.append("%s %s %s: hmmsearch %d, ours %d" % (model_rel, label, stage, t, o))
                line.append("%s MSV %d/%d Vit %d/%d" % (label, ours[0], theirs[0], ours[1], theirs[1]))
            print("%-34s targets %4d  %s" % (model_rel, count, "  ".join(line)))
    for failure in failures:
        print("MISMATCH " + failure)
    print("models %d, targets %d, pass counts compared %d, equal %d; per-target filter scores compared bit for bit "
          "with HMMER's %d; mismatches %d" % (len(MODELS), total_targets, compared, agreed, scores_compared,
                                              len(failures)))
    if failures or compared == 0:
        return 1
    if not have_gdb:
        print("SKIPPED: gdb or %s missing; only the pass counts were compared" % utest_gz)
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
