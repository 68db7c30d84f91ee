#!/usr/bin/env python3
"""cudp-hmmscan against hmmscan 3.3.2: the same scans, the same outputs.

Usage: hmmscan_vs_hmmscan.py CUDP_HMMSCAN EXAMPLES_DIR HMMSCAN CASE [BACKEND]

The profile database joins hmmer-examples models of one alphabet (tutorial and testsuite; the HMMER3/e ones
converted to /f by hmmconvert, as hmmpress takes one save format per file) and, for protein, models that hmmbuild
makes from hmmemit -a alignments of some of them. hmmscan reads it
pressed (hmmpress, run here), cudp-hmmscan reads the flat file. The query sequences mix the hmmer-examples sequences,
hmmemit samples of the models (whole, and local multihit samples embedded in random flanks) and random background
sequences (HMMER's background composition, lognormal lengths), all seeded. Both programs run with the same options
(hmmscan with --cpu 0, so that its hit lists are deterministic; cudp-hmmscan with --cpu 6, so that it searches three
models at once; always --tblout, --domtblout and --pfamtblout) and everything they write is compared exactly:
  - every tblout and domtblout row, byte for byte and in order, and the header lines;
  - the main output from the banner's search parameters to its end (every query's tables, alignment displays,
    pipeline statistics, the "[ok]" line);
  - --pfamtblout, whole.
Normalized first, and only these: the CPU time and Mc/sec values; the programs' names, versions, copyright, thread
count and backend; the paths of each program's own output files; the tables' Program, Version, Option settings,
Date and Current dir lines. Exit status 0 when everything agrees.
"""
import gzip
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hmmer_outputs import compare_outputs, read_fasta, table_rows, write_fasta  # noqa: E402

AMINO = "ACDEFGHIKLMNPQRSTVWY"
AMINO_BG = [0.0787945, 0.0151600, 0.0535222, 0.0668298, 0.0397062, 0.0695071, 0.0229198, 0.0590092, 0.0594422,
            0.0963728, 0.0237718, 0.0414386, 0.0482904, 0.0395639, 0.0540978, 0.0683364, 0.0540687, 0.0673417,
            0.0114135, 0.0304133]
DNA = "ACGT"

PROTEIN_MODELS = ["tutorial/globins4.hmm", "tutorial/fn3.hmm", "tutorial/Pkinase.hmm", "testsuite/20aa.hmm.gz",
                  "testsuite/Caudal_act.hmm.gz", "testsuite/LuxC.hmm.gz", "testsuite/RRM_1.hmm.gz", "testsuite/M1.hmm",
                  "testsuite/XYPPX.hmm", "testsuite/2OG-FeII_Oxy_3.hmm.gz", "testsuite/SMC_N.hmm.gz",
                  "testsuite/Patched.hmm.gz"]
# The models with GA lines (hmmscan --cut_ga fails on a model without them once it passes a filter).
GA_MODELS = ["tutorial/fn3.hmm", "tutorial/Pkinase.hmm", "testsuite/Caudal_act.hmm.gz", "testsuite/LuxC.hmm.gz",
             "testsuite/RRM_1.hmm.gz", "testsuite/XYPPX.hmm", "testsuite/2OG-FeII_Oxy_3.hmm.gz",
             "testsuite/SMC_N.hmm.gz"]
DNA_MODELS = ["tutorial/MADE1.hmm", "testsuite/3box.hmm.gz", "testsuite/2OG-FeII_Oxy_3-nt.hmm.gz",
              "testsuite/PSE.hmm", "testsuite/ecori.hmm"]

CASES = {
    "default": dict(models=PROTEIN_MODELS, built=["tutorial/globins4.hmm", "tutorial/fn3.hmm"], options=[]),
    # --max with score thresholds: every model reaches Forward; weak hits, unreported domains, inclusion lines.
    "max": dict(models=PROTEIN_MODELS, built=["tutorial/Pkinase.hmm"],
                options=["--max", "-T", "5", "--domT", "2", "--incT", "30", "--incdomT", "20", "--textw", "150"]),
    # Each model's GA lines set all thresholds; hits sorted by score.
    "cut_ga": dict(models=GA_MODELS, built=[], options=["--cut_ga", "--F1", "0.1"]),
    # Accessions for names, unlimited lines, E-value thresholds and search spaces, filters changed.
    "acc": dict(models=PROTEIN_MODELS, built=["tutorial/fn3.hmm"],
                options=["--acc", "--notextw", "-E", "1", "--domE", "0.5", "--incE", "1e-3", "--incdomE", "1e-2",
                         "-Z", "1000", "--domZ", "50", "--nonull2", "--nobias", "--F3", "1e-3", "--noali",
                         "--qformat", "fasta", "--seed", "7"]),
    "dna": dict(models=DNA_MODELS, built=[], options=["--domE", "100"], alphabet="dna"),
}


def read_uniprot(path):
    """The sequence of a UniProt text record (7LESS_DROME), as FASTA would carry it (no accession)."""
    seq, in_seq, desc = [], False, ""
    with open(path) as f:
        for line in f:
            if line.startswith("DE") and not desc:
                desc = line[5:].strip()
            elif line.startswith("SQ"):
                in_seq = True
            elif line.startswith("//"):
                break
            elif in_seq:
                seq.append(line.replace(" ", "").strip())
    return (os.path.basename(path), desc, "".join(seq))


def model_text(examples, rel):
    path = os.path.join(examples, rel)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return f.read()


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, **kw)
    if r.returncode != 0:
        sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return r.stdout


def make_inputs(examples, work, case, hmmscan):
    rng = random.Random(20201124)
    bindir = os.path.dirname(hmmscan)
    hmmemit, hmmbuild, hmmpress = (os.path.join(bindir, p) for p in ("hmmemit", "hmmbuild", "hmmpress"))
    dna = case.get("alphabet") == "dna"
    letters, weights = (DNA, None) if dna else (AMINO, AMINO_BG)
    # hmmpress takes one save format per file: every model in HMMER3/f (hmmconvert's output).
    hmmconvert = os.path.join(bindir, "hmmconvert")
    texts = []
    for i, rel in enumerate(case["models"]):
        src = os.path.join(work, "orig%d.hmm" % i)
        with open(src, "w") as f:
            f.write(model_text(examples, rel))
        texts.append(run([hmmconvert, src]))
    # Models built from sampled alignments (renamed so that the database's names stay unique).
    for i, rel in enumerate(case["built"]):
        src = os.path.join(work, "src%d.hmm" % i)
        with open(src, "w") as f:
            f.write(model_text(examples, rel))
        sto = os.path.join(work, "built%d.sto" % i)
        with open(sto, "w") as f:
            f.write(run([hmmemit, "-a", "-N", "12", "--seed", str(11 + i), src]))
        out = os.path.join(work, "built%d.hmm" % i)
        run([hmmbuild, "-n", "built%d_%s" % (i, os.path.basename(rel).split(".")[0]), "--seed", "3", out, sto])
        with open(out) as f:
            texts.append(f.read())
    db = os.path.join(work, "db.hmm")
    with open(db, "w") as f:
        f.write("".join(texts))
    run([hmmpress, db])

    def background(n):
        return "".join(rng.choices(letters, weights, k=n))

    queries = []
    if dna:
        # Cut short: hmmscan refuses sequences over 100 kb (nhmmscan's work).
        dna_targets = read_fasta(os.path.join(examples, "tutorial", "dna_target.fa"))[:3]
        queries += [(n, d, s[:20000]) for n, d, s in dna_targets]
    else:
        tut = os.path.join(examples, "tutorial")
        queries += read_fasta(os.path.join(tut, "HBB_HUMAN"))
        queries += read_fasta(os.path.join(examples, "testsuite", "PAX8_HUMAN"))
        queries += read_fasta(os.path.join(tut, "globins45.fa"))[:6]
        queries.append(read_uniprot(os.path.join(tut, "7LESS_DROME")))
    # Samples of the models: whole core-model sequences, and local multihit ones in random flanks.
    for i, rel in enumerate(case["models"]):
        src = os.path.join(work, "emit%d.hmm" % i)
        with open(src, "w") as f:
            f.write(texts[i])
        whole = os.path.join(work, "whole%d.fa" % i)
        with open(whole, "w") as f:
            f.write(run([hmmemit, "-N", "2", "--seed", str(100 + i), src]))
        for j, (name, desc, seq) in enumerate(read_fasta(whole)):
            queries.append(("s%d_whole%d" % (i, j), "sampled from %s" % rel, seq))
        local = os.path.join(work, "local%d.fa" % i)
        with open(local, "w") as f:
            f.write(run([hmmemit, "-p", "-N", "2", "-L", "300", "--local", "--seed", str(200 + i), src]))
        for j, (name, desc, seq) in enumerate(read_fasta(local)):
            if len(seq) > 3000:
                seq = seq[:3000]
            queries.append(("s%d_local%d" % (i, j), "", background(rng.randint(0, 80)) + seq +
                            background(rng.randint(0, 80))))
    for i in range(40):
        n = min(4000, int(rng.lognormvariate(5.6, 0.7)) + 1)
        queries.append(("rnd%02d" % i, "random background" if i % 3 == 0 else "", background(n)))
    rng.shuffle(queries)
    write_fasta(os.path.join(work, "queries.fa"), queries)
    return len(texts), len(queries)


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    cudp, examples, hmmscan, case_name = sys.argv[1:5]
    backend = sys.argv[5] if len(sys.argv) == 6 else "host"
    case = CASES[case_name]
    with tempfile.TemporaryDirectory() as work:
        nmodels, nq = make_inputs(examples, work, case, hmmscan)
        db, q = os.path.join(work, "db.hmm"), os.path.join(work, "queries.fa")
        runs = {}
        for prog, tool, extra in (("hmmscan", hmmscan, ["--cpu", "0"]), ("cudp", cudp, ["--backend", backend, "--cpu", "6"])):
            p = os.path.join(work, prog + ".")
            files = ["-o", p + "out", "--tblout", p + "tbl", "--domtblout", p + "dom", "--pfamtblout", p + "pfam"]
            run([tool] + files + case["options"] + extra + [db, q])
            runs[prog] = p
        outputs = (("out", "main"), ("tbl", "table"), ("dom", "table"), ("pfam", "table"))
        compared, failures = compare_outputs("hmmscan", runs["hmmscan"], runs["cudp"], outputs)
        rows = table_rows(runs["hmmscan"] + "tbl")
        drows = table_rows(runs["hmmscan"] + "dom")
        print("case %s: %d models, %d queries, %d tblout rows, %d domtblout rows, %d lines compared" %
              (case_name, nmodels, nq, rows, drows, compared))
        if failures:
            print("\n".join(failures))
            sys.exit(1)
        print("all identical")


if __name__ == "__main__":
    main()
