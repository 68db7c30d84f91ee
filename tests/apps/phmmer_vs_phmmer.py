#!/usr/bin/env python3
"""cudp-phmmer against phmmer 3.3.2: the same searches, the same outputs.

Usage: phmmer_vs_phmmer.py CUDP_PHMMER EXAMPLES_DIR PHMMER CASE [BACKEND]

The queries are proteins of hmmer-examples (HBB_HUMAN, PAX8_HUMAN, globins45 records) and generated ones (with
ambiguity codes and lower case). The database, seeded, mixes the hmmer-examples proteins, mutated copies of the
queries at 25% to 95% identity embedded in random flanks (one to three per target, so that some targets hold several
domains), and random background sequences. Both programs run with the same options (phmmer with --cpu 0, so that
its hit list is deterministic; always -A, --tblout, --domtblout and --pfamtblout) and everything they write is
compared exactly:
  - every tblout and domtblout row, byte for byte and in order;
  - the main output from the banner's search parameters to its end (tables, alignment displays, statistics);
  - --pfamtblout and the -A Stockholm alignments, whole.
Normalized first, and only these: the CPU time and Mc/sec values; the programs' names, versions, copyright, thread
count and backend; the paths of each program's own output files; the tables' Program, Version, Option settings,
Date and Current dir lines; the alignments' #=GF AU line. Exit status 0 when everything agrees.
"""
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hmmer_outputs import compare_outputs, read_fasta, table_rows, write_fasta  # noqa: E402

AMINO = "ACDEFGHIKLMNPQRSTVWY"
AMINO_BG = [0.0787945, 0.0151600, 0.0535222, 0.0668298, 0.0397062, 0.0695071, 0.0229198, 0.0590092, 0.0594422,
            0.0963728, 0.0237718, 0.0414386, 0.0482904, 0.0395639, 0.0540978, 0.0683364, 0.0540687, 0.0673417,
            0.0114135, 0.0304133]

CASES = {
    "default": [],
    "options": ["--popen", "0.05", "--pextend", "0.5", "--mx", "BLOSUM45", "-E", "1", "--domE", "1", "--incE", "1e-5",
                "--seed", "7", "--EmL", "100", "--EfN", "150", "--Eft", "0.05", "--nonull2"],
    "max": ["--max", "-T", "10", "--domT", "5", "--mx", "PAM30", "--textw", "150", "--noali"],
    "filters": ["--nobias", "--F1", "0.05", "--F3", "1e-4", "-Z", "1000", "--domZ", "100", "--acc", "--notextw",
                "--EvL", "150", "--EvN", "120", "--EfL", "80", "--qformat", "fasta", "--tformat", "fasta"],
}


def background(rng, n):
    return "".join(rng.choices(AMINO, AMINO_BG, k=n))


def mutated(rng, seq, identity):
    out = []
    for c in seq:
        r = rng.random()
        if r < identity:
            out.append(c)
        elif r < identity + (1 - identity) * 0.8:
            out.append(rng.choice(AMINO))
        elif r < identity + (1 - identity) * 0.9:
            out.append(c + background(rng, rng.randint(1, 4)))
        # else: deleted
    return "".join(out)


def make_inputs(examples, work):
    rng = random.Random(20201124)
    tut = os.path.join(examples, "tutorial")
    globins = read_fasta(os.path.join(tut, "globins45.fa"))
    hbb = read_fasta(os.path.join(tut, "HBB_HUMAN"))
    pax8 = read_fasta(os.path.join(examples, "testsuite", "PAX8_HUMAN"))
    odd = "".join(rng.choice(AMINO + "BZXUOJ") for _ in range(90))
    odd = "".join(c.lower() if rng.random() < 0.3 else c for c in odd)
    queries = hbb + pax8 + [globins[3], globins[20]] + [("odd_query", "generated, with ambiguity codes", odd)]
    db = list(globins) + hbb + pax8
    n = 0
    for _, _, seq in queries:
        plain = seq.upper()
        for identity in (0.25, 0.35, 0.5, 0.7, 0.95):
            for copies in (1, 2, 3):
                parts = [background(rng, rng.randint(0, 120))]
                for _ in range(copies):
                    start = rng.randint(0, max(0, len(plain) // 3))
                    end = rng.randint(min(len(plain), start + 20), len(plain))
                    parts.append(mutated(rng, plain[start:end], identity))
                    parts.append(background(rng, rng.randint(5, 150)))
                n += 1
                db.append(("hom%03d" % n, "identity %.2f, %d copies" % (identity, copies), "".join(parts)))
    for i in range(300):
        length = int(rng.lognormvariate(5.5, 0.6)) + 1
        db.append(("rnd%03d" % i, "" if i % 3 else "random background", background(rng, length)))
    rng.shuffle(db)
    write_fasta(os.path.join(work, "queries.fa"), queries)
    write_fasta(os.path.join(work, "db.fa"), db)
    return len(queries), len(db)


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    cudp, examples, phmmer, case = sys.argv[1:5]
    backend = sys.argv[5] if len(sys.argv) == 6 else "host"
    options = CASES[case]
    with tempfile.TemporaryDirectory() as work:
        nq, ndb = make_inputs(examples, work)
        q, db = os.path.join(work, "queries.fa"), os.path.join(work, "db.fa")
        runs = {}
        for prog, tool, extra in (("phmmer", phmmer, ["--cpu", "0"]), ("cudp", cudp, ["--backend", backend])):
            p = os.path.join(work, prog + ".")
            files = ["-o", p + "out", "-A", p + "sto", "--tblout", p + "tbl", "--domtblout", p + "dom",
                     "--pfamtblout", p + "pfam"]
            run([tool] + files + options + extra + [q, db])
            runs[prog] = p
        outputs = (("out", "main"), ("tbl", "table"), ("dom", "table"), ("pfam", "table"), ("sto", "stockholm"))
        compared, failures = compare_outputs("phmmer", runs["phmmer"], runs["cudp"], outputs)
        rows = table_rows(runs["phmmer"] + "tbl")
        drows = table_rows(runs["phmmer"] + "dom")
        print("case %s: %d queries, %d targets, %d tblout rows, %d domtblout rows, %d lines compared" %
              (case, nq, ndb, rows, drows, compared))
        if failures:
            print("\n".join(failures))
            sys.exit(1)
        print("all identical")


if __name__ == "__main__":
    main()
