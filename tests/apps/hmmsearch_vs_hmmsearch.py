#!/usr/bin/env python3
"""cudp-hmmsearch against hmmsearch 3.3.2: the same search, the same tables.

Usage: hmmsearch_vs_hmmsearch.py CUDP_HMMSEARCH EXAMPLES_DIR HMMSEARCH HMMEMIT CASE [BACKEND]

CASE picks the models, the database and the options (see CASES). The database mixes the hmmer-examples sequences,
homologs sampled from the models with hmmemit (whole core-model sequences, and local multihit samples embedded in
random flanks) and random background sequences (HMMER's background composition, lognormal lengths), all seeded.
Both programs run on it with the same options (hmmsearch with --cpu 0, so that its hit list is deterministic; with
alignments unless the case says "noali"; always with -A), and everything they write is compared exactly, every time:
  - every tblout and domtblout row of every query, byte for byte and in order (a difference names the query,
    target, column and both values), and their header lines;
  - the main output from its banner's search parameters to its end: every query's sequence and domain tables, every
    domain's alignment display, pipeline statistics, the "[ok]" line;
  - --pfamtblout, whole;
  - the -A Stockholm alignments, whole.
Normalized first, and only these: the CPU time and Mc/sec lines' values; the program's name, version, copyright
and thread count or backend; the paths of each program's own output files; the trailers' Program, Version, Option
settings (the command line), Date and Current dir lines; the alignments' #=GF AU line (the program's name).
Exit status 0 when everything agrees.
"""
import gzip
import math
import os
import random
import subprocess
import sys
import tempfile

AMINO = "ACDEFGHIKLMNPQRSTVWY"
AMINO_BG = [0.0787945, 0.0151600, 0.0535222, 0.0668298, 0.0397062, 0.0695071, 0.0229198, 0.0590092, 0.0594422,
            0.0963728, 0.0237718, 0.0414386, 0.0482904, 0.0395639, 0.0540978, 0.0683364, 0.0540687, 0.0673417,
            0.0114135, 0.0304133]

CASES = {
    # Three protein models in one file (globins, fn3 with 9 domains in 7LESS_DROME, kinases), default options.
    "protein": dict(models=["tutorial/globins4.hmm", "tutorial/fn3.hmm", "tutorial/Pkinase.hmm"], alphabet="amino",
                    options=[]),
    # Thresholds and filter settings: E-value and score thresholds, -Z/--domZ, no null2, no bias filter, looser F1.
    "protein-options": dict(models=["tutorial/fn3.hmm", "tutorial/Pkinase.hmm"], alphabet="amino",
                            options=["-E", "1e-2", "--domE", "1e-3", "--incE", "1e-8", "--incdomT", "25", "-Z", "2000",
                                     "--nonull2", "--nobias", "--F1", "0.05", "--seed", "7", "--tformat", "fasta"]),
    # Pfam's per-model bit score cutoffs (GA lines of fn3 and Pkinase), hits sorted by score.
    # Also the case without alignments in the main output (--noali; -A still writes them).
    "protein-cut": dict(models=["tutorial/fn3.hmm", "tutorial/Pkinase.hmm"], alphabet="amino",
                        options=["--cut_ga", "--F1", "0.1"], noali=True),
    "protein-max": dict(models=["tutorial/globins4.hmm", "tutorial/fn3.hmm"], alphabet="amino",
                        options=["--max", "-T", "5", "--domT", "2", "--incT", "30", "--domZ", "100", "--acc",
                                 "--textw", "150"]),
    # --max with E-value thresholds: many weak random hits enter hmmsearch's hit list while only a part of the
    # database has been counted, then fall below the final threshold; they still widen the name columns.
    "protein-max-widths": dict(models=["tutorial/fn3.hmm", "tutorial/globins4.hmm"], alphabet="amino",
                               options=["--max", "--notextw"], random_first=True),
    # The testsuite's HMMER3/e protein models (hmmsearch reads one save format per file): lengths 1 to 1142.
    "protein-testsuite": dict(models=["testsuite/20aa.hmm.gz", "testsuite/Caudal_act.hmm.gz",
                                      "testsuite/LuxC.hmm.gz", "testsuite/RRM_1.hmm.gz", "testsuite/M1.hmm",
                                      "testsuite/XYPPX.hmm", "testsuite/Patched.hmm.gz", "testsuite/SMC_N.hmm.gz"],
                              alphabet="amino", options=[]),
    # A DNA model (MADE1) against DNA targets.
    "dna": dict(models=["tutorial/MADE1.hmm"], alphabet="dna", options=[]),
    # One model of 2691 nodes, built from five joined ones: on the GPU its Viterbi filter and Forward run on groups
    # of four warps exchanging through shared memory (tiers/striped_rows.cuh, BlockStripedGroup). Built with RF and
    # SS_cons lines, so its alignments show CS and RF rows, in blocks, and its -A alignment is many blocks long.
    "protein-long": dict(joined=["testsuite/SMC_N.hmm.gz", "testsuite/Patched.hmm.gz", "testsuite/LuxC.hmm.gz",
                                 "tutorial/Pkinase.hmm", "tutorial/fn3.hmm"], alphabet="amino", options=[]),
    # 3005 nodes (bench/make_long_models.py's long3000), near the largest compiled Forward shape (3072 nodes).
    "protein-long3000": dict(joined=["testsuite/SMC_N.hmm.gz", "testsuite/Patched.hmm.gz", "testsuite/LuxC.hmm.gz",
                                     "tutorial/Pkinase.hmm", "tutorial/fn3.hmm", "testsuite/2OG-FeII_Oxy_3.hmm.gz",
                                     "testsuite/Caudal_act.hmm.gz", "testsuite/RRM_1.hmm.gz"],
                             alphabet="amino", options=[]),
    # Alignment displays 200 characters wide, with the models' accessions (fn3, Pkinase) as their names.
    "protein-textw": dict(models=["tutorial/Pkinase.hmm", "tutorial/fn3.hmm"], alphabet="amino",
                          options=["--textw", "200", "--acc"]),
    # The hmmer-examples models no other case searches: a HMMER3/f protein model; DNA models with RF and CS lines
    # (3box), RF only (MADE1), neither (2OG-FeII_Oxy_3-nt), and the HMMER3/e ones (PSE with RF and CS, ecori).
    "protein-examples": dict(models=["testsuite/2OG-FeII_Oxy_3.hmm.gz", "tutorial/globins4.hmm"], alphabet="amino",
                             options=[]),
    "dna-examples": dict(models=["testsuite/3box.hmm.gz", "tutorial/MADE1.hmm", "testsuite/2OG-FeII_Oxy_3-nt.hmm.gz"],
                         alphabet="dna", options=["--domE", "100"]),
    "dna-examples-3e": dict(models=["testsuite/PSE.hmm", "testsuite/ecori.hmm"], alphabet="dna",
                            options=["--max", "-E", "100", "--domE", "100", "--notextw"]),
}

# Cases on models that hmmbuild makes from the examples' alignments, kept apart from CASES so that new entries merge
# cleanly. "built" is [(alignment, hmmbuild options), ...]; the database is sampled from the built models.
BUILT_CASES = {
    # --pnone (no priors) leaves t(D->M) = 0 at many nodes: the optimal accuracy alignment must gate the I->M and
    # D->M paths by their own transitions, or its ends and the acc column differ.
    "protein-pnone": dict(built=[("tutorial/fn3.sto", ["--pnone"]), ("tutorial/globins4.sto", ["--pnone"])],
                          alphabet="amino", options=["--domE", "10"]),
    # hmmbuild --hand on an alignment with RF and SS_cons lines: a small model whose displays have CS and RF rows.
    "protein-rfcs": dict(joined=["tutorial/fn3.hmm", "tutorial/globins4.hmm"], alphabet="amino", options=[]),
}
CASES.update(BUILT_CASES)

# Cases with a database of their own instead of build_database's: "database" names a writer in DATABASES.
OWN_DATABASE_CASES = {
    # Thousands of short random targets under five names, everything reported: many domains tie on -ln P and name,
    # and the one-residue alignments among them must sort after the longer ones (hmmsearch's strand rule).
    "protein-ties": dict(models=["tutorial/globins4.hmm"], alphabet="amino", database="ties", exact=True,
                         options=["--max", "-E", "1e9", "--domE", "1e9"]),
    # The same with everything included: -A names the domains "r0/3-40" and the like, some twice, and Easel's writer
    # then prefixes every name with its row number.
    "protein-ties-msa": dict(models=["tutorial/globins4.hmm"], alphabet="amino", database="ties", exact=True,
                             options=["--max", "-E", "1e9", "--domE", "1e9", "--incE", "1e9", "--incdomE", "1e9"]),
    # Header lines split as Easel splits them: \v or \f after the name starts the description, trailing blanks
    # stay, blanks may follow '>'.
    "protein-headers": dict(models=["tutorial/globins4.hmm"], alphabet="amino", database="headers", exact=True,
                            options=[]),
    # '.' and '_' (read as gaps) and '~' (missing data) inside targets: kept, counted in the length and scored like
    # '*', which only a non-match state can take.
    # No -A here: hmmsearch aborts (p7_alidisplay_Backconvert) on an insert that emitted a gap character.
    "protein-residues": dict(models=["tutorial/globins4.hmm", "tutorial/fn3.hmm"], alphabet="amino",
                             database="residues", exact=True, options=["--domE", "100", "-E", "100"], no_msa=True),
}
CASES.update(OWN_DATABASE_CASES)

# Pieces of hmmemit samples of a joined model of 2691 nodes, cut to lengths whose scores sweep 1000-1100 bits: there
# exp(lnP) * Z falls below the normal double range, and hmmsearch, which runs with the FTZ/DAZ bits set, prints 0
# where a plain computation prints a subnormal such as 3.9e-311.
UNDERFLOW_CASES = {
    "protein-underflow": dict(joined=CASES["protein-long"]["joined"], alphabet="amino", options=[],
                              pieces=dict(samples=3, seed=5, shortest=2440, step=12)),
}
CASES.update(UNDERFLOW_CASES)


def ties_database(path):
    rng = random.Random(7)
    with open(path, "w") as f:
        for i in range(3000):
            f.write(">r%d\n%s\n" % (i % 5, "".join(rng.choices(AMINO, k=rng.randint(5, 120)))))
    return 3000


def globin_records():
    """The globins45 sequences, the targets of the database writers below."""
    examples = sys.argv[2]
    return records(read_text(os.path.join(examples, "tutorial/globins45.fa")))


def headers_database(path):
    heads = [">%s\vvertical tab", ">%s\fform feed then text", ">%s \t\vblank, tab, then vertical tab",
             ">%s trailing blanks \t ", "> \t%s after blank and tab", ">%s\t", ">%s\v", ">%s plain\r"]
    seqs = globin_records()
    with open(path, "w") as f:
        for i, (name, _, s) in enumerate(seqs):
            f.write(heads[i % len(heads)] % name + "\n" + s + "\n")
    return len(seqs)


def residues_database(path):
    rng = random.Random(11)
    seqs = globin_records()
    with open(path, "w") as f:
        for i, (name, _, s) in enumerate(seqs):
            s = list(s)
            for _ in range(i % 6):
                s.insert(rng.randrange(len(s) + 1), rng.choice("._~*"))
            f.write(">%s\n%s\n" % (name, "".join(s)))
        f.write(">only_gaps_and_residues\n.._~~MVLSEGEWQLVLHVWAKVEADVAGHGQDILIRLFKSHPETLEKF~_..\n")
    return len(seqs) + 1


DATABASES = {"ties": ties_database, "headers": headers_database, "residues": residues_database}


def pieces_database(model, hmmemit_tool, pieces, path):
    """Pieces of the model's samples, one per length from pieces["shortest"] up in steps of pieces["step"]."""
    n = 0
    with open(path, "w") as f:
        samples = hmmemit(hmmemit_tool, model, ["-N", str(pieces["samples"]), "--seed", str(pieces["seed"])])
        for m, (_, _, s) in enumerate(samples):
            for length in range(pieces["shortest"], len(s) + 1, pieces["step"]):
                start = (m * 137 + length * 7) % (len(s) - length + 1)
                f.write(">piece%d_%d\n%s\n" % (m, length, s[start:start + length]))
                n += 1
    return n


def flushed_evalues(tbl_path):
    """tblout rows whose full-sequence E-value hmmsearch printed as 0 although the score is below 1080 bits, where
    exp(lnP) * Z is a subnormal double rather than 0."""
    with open(tbl_path) as f:
        rows = [l.split() for l in f if not l.startswith("#")]
    return sum(1 for r in rows if float(r[4]) == 0.0 and float(r[5]) < 1080.0)


def exact_lines(path, kind):
    """A whole output as lines, for an exact comparison: the main text from its first query on without the timing
    lines; a table without the trailer lines that name the program, its command line, the date or directory."""
    with open(path) as f:
        text = f.read()
    if kind == "txt":
        text = text[text.find("\nQuery:") + 1:]
        return [l.split(" saved to: ")[0] for l in text.split("\n") if not l.startswith(("# CPU time:", "# Mc/sec:"))]
    if kind == "sto":
        return stockholm_text(path)
    identity = ("# Program:", "# Version:", "# Option settings:", "# Date:", "# Current dir:")
    return [l for l in text.split("\n") if not l.startswith(identity)]


def compare_exactly(case_name, case, out, ntargets):
    """Every output of both programs, line for line and in order (cases with "exact": duplicate target names make
    the by-name comparison of main() ambiguous). Returns the failures."""
    failures = []
    for n, kind in enumerate(("txt", "tbl", "dom", "pfam", "sto")):
        if kind == "sto" and case.get("no_msa"):
            continue
        a, b = exact_lines(out["hmmsearch"][n], kind), exact_lines(out["cudp"][n], kind)
        rows = sum(1 for l in a if l and not l.startswith("#"))
        print("case %s: %s: %d lines (%d rows) in hmmsearch, %d in cudp" % (case_name, kind, len(a), rows, len(b)))
        if kind not in ("txt", "sto") and rows == 0:
            failures.append("%s: no rows: the comparison tested nothing" % kind)
        differing = [i for i in range(max(len(a), len(b))) if i >= len(a) or i >= len(b) or a[i] != b[i]]
        for i in differing[:5]:
            failures.append("%s line %d:\n    hmmsearch %r\n    cudp      %r" %
                            (kind, i + 1, a[i] if i < len(a) else None, b[i] if i < len(b) else None))
        if len(differing) > 5:
            failures.append("%s: %d more differing lines" % (kind, len(differing) - 5))
    print("case %s: %d targets" % (case_name, ntargets))
    return failures


def built_models(parts, examples, hmmbuild_tool, work):
    """Builds each alignment with its hmmbuild options; returns the model files."""
    out = []
    for n, (rel, args) in enumerate(parts):
        hmm = os.path.join(work, "built%d.hmm" % n)
        subprocess.run([hmmbuild_tool] + args + [hmm, os.path.join(examples, rel)], check=True, capture_output=True)
        out.append(hmm)
    return out


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return f.read()


def records(text):
    """FASTA records, or the ID/SQ sections of a Swiss-Prot flat file: (name, description, sequence)."""
    out = []
    if text.startswith("ID "):
        name, seq, in_seq = None, [], False
        for line in text.splitlines():
            if line.startswith("ID "):
                name, seq, in_seq = line.split()[1], [], False
            elif line.startswith("SQ "):
                in_seq = True
            elif line.startswith("//"):
                out.append((name, "", "".join(seq)))
            elif in_seq:
                seq.append("".join(line.split()))
        return out
    name, desc, seq = None, "", []
    for line in text.splitlines():
        if line.startswith(">"):
            if name is not None:
                out.append((name, desc, "".join(seq)))
            head = line[1:].split(None, 1)
            name, desc, seq = head[0], head[1].strip() if len(head) > 1 else "", []
        elif name is not None:
            seq.append(line.strip())
    if name is not None:
        out.append((name, desc, "".join(seq)))
    return out


def hmmemit(tool, model, args):
    text = subprocess.run([tool] + args + [model], check=True, capture_output=True, text=True).stdout
    return records(text)


def joined_model(parts, examples, hmmemit_tool, hmmbuild_tool, work):
    """hmmemit alignments of the parts joined column by column, built into one model on their reference columns,
    with a made-up secondary structure line (the model's CS annotation)."""
    rows, reference = None, ""
    for m, rel in enumerate(parts):
        part = os.path.join(work, "part.hmm")
        with open(part, "w") as f:
            f.write(read_text(os.path.join(examples, rel)))
        text = subprocess.run([hmmemit_tool, "-a", "-N", "12", "--seed", str(31 + m), part], check=True,
                              capture_output=True, text=True).stdout
        blocks = {}
        for line in text.splitlines():
            if line.startswith("#=GC RF"):
                reference += line.split()[2]
            elif line and not line.startswith("#") and line != "//":
                name, aligned = line.split()
                blocks.setdefault(name, []).append(aligned)
        aligned = ["".join(b) for b in blocks.values()]
        rows = aligned if rows is None else [a + b for a, b in zip(rows, aligned)]
    sto, hmm = os.path.join(work, "joined.sto"), os.path.join(work, "joined.hmm")
    with open(sto, "w") as f:
        f.write("# STOCKHOLM 1.0\n\n")
        for i, r in enumerate(rows):
            f.write("seq%02d %s\n" % (i, r))
        structure = "".join("HHHHHHH--EEEEETTS-"[(7 * i // 5) % 18] for i in range(len(reference)))
        f.write("#=GC SS_cons %s\n#=GC RF %s\n//\n" % (structure, reference))
    subprocess.run([hmmbuild_tool, "--hand", "--amino", "-n", "joined", hmm, sto], check=True, capture_output=True)
    return hmm


def build_database(case, examples, hmmemit_tool, path):
    rng = random.Random(20261121)
    seqs = []
    if case["alphabet"] == "amino":
        for f in ["tutorial/globins45.fa", "tutorial/7LESS_DROME", "testsuite/PAX8_HUMAN", "tutorial/HBB_HUMAN"]:
            seqs += records(read_text(os.path.join(examples, f)))
        letters, weights = AMINO, AMINO_BG
        n_random, mu = 1000, math.log(250)
    else:
        # hmmsearch refuses targets over 100,000 residues: dna_target.fa (330 kb) goes in 20 kb pieces.
        for name, desc, s in records(read_text(os.path.join(examples, "tutorial/dna_target.fa"))):
            seqs += [("%s/%d" % (name, i // 20000 + 1), desc, s[i:i + 20000]) for i in range(0, len(s), 20000)]
        seqs += records(read_text(os.path.join(examples, "testsuite/ecori.fa")))
        letters, weights = "ACGT", [0.25] * 4
        n_random, mu = 60, math.log(800)

    def background(n):
        return "".join(rng.choices(letters, weights, k=n))

    for m, rel in enumerate(case["models"]):
        model = os.path.join(examples, rel)
        stem = os.path.basename(rel).split(".")[0]
        for name, _, s in hmmemit(hmmemit_tool, model, ["-N", "4", "--seed", str(11 + m)]):
            k = int(name.split("-")[-1].replace("sample", "") or 0)
            # Descriptions of 30 to 500 characters: the text output cuts them at its width (--textw, --notextw).
            desc = "sampled from %s by hmmemit, " % stem + " ".join("word%d" % w for w in range(25 * k - 20))
            seqs.append(("core-%s-%s" % (stem, name.split("-")[-1]), desc.rstrip(" ,"), s))
        for name, _, s in hmmemit(hmmemit_tool, model, ["-p", "-N", "6", "--seed", str(17 + m)]):
            flank = int(rng.lognormvariate(mu, 0.5)) // 3
            seqs.append(("planted-%s-%s" % (stem, name.split("-")[-1]), "",
                         background(flank) + s + background(flank)))
    randoms = []
    for i in range(n_random):
        n = max(10, min(3000, int(rng.lognormvariate(mu, 0.6))))
        name = "random%04d" % i + "_" * (i % 41)  # names of many lengths: see protein-max-widths
        randoms.append((name, "background sequence %d" % i if i % 3 == 0 else "", background(n)))
    seqs = randoms + seqs if case.get("random_first") else seqs + randoms
    seen = set()
    with open(path, "w") as f:
        for name, desc, s in seqs:
            if name in seen or not s:
                continue
            seen.add(name)
            f.write(">%s%s\n" % (name, " " + desc if desc else ""))
            for i in range(0, len(s), 60):
                f.write(s[i:i + 60] + "\n")
    return len(seen)


def table(path, query_column):
    """Rows of a tblout/domtblout per query name, in file order; header and trailer lines apart."""
    rows, header, trailer = {}, [], []
    order = []
    with open(path) as f:
        lines = f.read().split("\n")
    in_trailer = False
    for line in lines:
        if line == "#":
            in_trailer = True
        if line.startswith("#"):
            (trailer if in_trailer else header).append(line)
            continue
        if not line.strip():
            continue
        q = line.split()[query_column] if len(line.split()) > query_column else ""
        rows.setdefault(q, []).append(line)
    return rows, header, trailer


def statistics(path):
    """Per query: the pipeline statistics lines from 'Query model(s):' to 'Domain search space'."""
    out, current, q = {}, None, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("Query:       "):
                q = line.split()[1]
            if line.startswith("Query model(s):"):
                current = out.setdefault(q, [])
            if current is not None:
                current.append(line)
                if line.startswith("Domain search space"):
                    current = None
    return out


TBL_COLUMNS = ["target name", "target accession", "query name", "query accession", "E-value", "score", "bias",
               "best-domain E-value", "best-domain score", "best-domain bias", "exp", "reg", "clu", "ov", "env", "dom",
               "rep", "inc", "description"]
DOM_COLUMNS = ["target name", "target accession", "tlen", "query name", "query accession", "qlen", "E-value",
               "score", "bias", "#", "of", "c-Evalue", "i-Evalue", "domain score", "domain bias", "hmm from", "hmm to",
               "ali from", "ali to", "env from", "env to", "acc", "description"]
# Trailer lines that name the program, its command line, the date or the working directory: not results.
IDENTITY_LINES = ("# Program:", "# Version:", "# Option settings:", "# Date:", "# Current dir:")


def normalized_trailer(trailer):
    return [l.split(":")[0] + ": <normalized>" if l.startswith(IDENTITY_LINES) else l for l in trailer]


def describe_row_difference(what, key_column, columns, row_h, row_c):
    fh, fc = row_h.split(None, len(columns) - 1), row_c.split(None, len(columns) - 1)
    for i, name in enumerate(columns):
        a = fh[i] if i < len(fh) else None
        b = fc[i] if i < len(fc) else None
        if a != b:
            return "%s, target %s: column '%s' is %r in hmmsearch, %r in cudp" % (what, fh[key_column], name, a, b)
    return "%s, target %s: same fields, different bytes (spacing):\n    hmmsearch %r\n    cudp      %r" % (
        what, fh[key_column], row_h, row_c)


def compare_table(what, columns, theirs, ours, failures):
    """Every row of every query byte for byte, in order; headers exact; trailers with identity lines normalized.
    Returns the number of rows compared."""
    rows_h, head_h, tail_h = theirs
    rows_c, head_c, tail_c = ours
    if head_h != head_c:
        failures.append("%s header lines differ:\n  hmmsearch %s\n  cudp      %s" % (what, head_h, head_c))
    if normalized_trailer(tail_h) != normalized_trailer(tail_c):
        failures.append("%s trailers differ:\n  hmmsearch %s\n  cudp      %s" % (what, tail_h, tail_c))
    compared = 0
    for q in sorted(set(rows_h) | set(rows_c)):
        a, b = rows_h.get(q, []), rows_c.get(q, [])
        if len(a) != len(b):
            names_a = [r.split()[0] for r in a]
            names_b = [r.split()[0] for r in b]
            failures.append("%s, query %s: %d rows in hmmsearch, %d in cudp; targets only in hmmsearch %s, only in "
                            "cudp %s" % (what, q, len(a), len(b), sorted(set(names_a) - set(names_b)),
                                         sorted(set(names_b) - set(names_a))))
        for i, (row_h, row_c) in enumerate(zip(a, b)):
            compared += 1
            if row_h != row_c:
                failures.append("query %s, row %d: " % (q, i + 1) +
                                describe_row_difference(what, 0, columns, row_h, row_c))
    return compared


def main_text(path, program):
    """The main output with times, the program's banner and its own file names normalized: the banner's search
    parameters, every query's tables, statistics and the trailer stay."""
    out = []
    with open(path) as f:
        for line in f.read().split("\n"):
            if line.startswith(("# CPU time:", "# Mc/sec:")):
                line = line.split(":")[0] + ": <time>"
            elif line.startswith(("# hmmsearch ::", "# cudp-hmmsearch ::", "# HMMER 3.3.2", "# cudp ", "# Copyright",
                                   "# Freely")):
                continue  # program identity
            elif line.startswith(("# number of worker threads:", "# cudp backend:")):
                continue  # how the search ran, not what it found
            elif line.startswith("# ") and ":" in line and program + "." in line:
                line = line.replace(os.path.join(os.path.dirname(path), program + "."), "<output>.")
            out.append(line)
    return out


def stockholm_text(path):
    """-A output as lines, the author line (the program's name and version) normalized."""
    with open(path) as f:
        lines = f.read().split("\n")
    return ["#=GF AU <program>" if l.startswith("#=GF AU ") else l for l in lines]


def pfam_text(path):
    with open(path) as f:
        lines = f.read().split("\n")
    return normalized_trailer(lines)


def compare_lines(what, a, b, failures, shown=5):
    """Line for line, exactly; the first differences are named. Returns the number of lines compared."""
    differing = [i for i in range(max(len(a), len(b))) if i >= len(a) or i >= len(b) or a[i] != b[i]]
    if len(a) != len(b):
        failures.append("%s: %d lines in hmmsearch, %d in cudp" % (what, len(a), len(b)))
    for i in differing[:shown]:
        failures.append("%s line %d differs:\n    hmmsearch %r\n    cudp      %r" %
                        (what, i + 1, a[i] if i < len(a) else None, b[i] if i < len(b) else None))
    if len(differing) > shown:
        failures.append("%s: %d more differing lines" % (what, len(differing) - shown))
    return min(len(a), len(b))


def main():
    cudp, examples, hmmsearch, hmmemit_tool, case_name = sys.argv[1:6]
    backend = sys.argv[6] if len(sys.argv) > 6 else "host"
    case = CASES[case_name]
    failures = []
    with tempfile.TemporaryDirectory() as work:
        models = os.path.join(work, "models.hmm")
        if "joined" in case:
            hmmbuild_tool = os.path.join(os.path.dirname(hmmsearch), "hmmbuild")
            case["models"] = [joined_model(case["joined"], examples, hmmemit_tool, hmmbuild_tool, work)]
        if "built" in case:
            hmmbuild_tool = os.path.join(os.path.dirname(hmmsearch), "hmmbuild")
            case["models"] = built_models(case["built"], examples, hmmbuild_tool, work)
        with open(models, "w") as f:
            for rel in case["models"]:
                f.write(read_text(os.path.join(examples, rel)))
        db = os.path.join(work, "db.fa")
        if "database" in case:
            ntargets = DATABASES[case["database"]](db)
        elif "pieces" in case:
            ntargets = pieces_database(case["models"][0], hmmemit_tool, case["pieces"], db)
        else:
            ntargets = build_database(case, examples, hmmemit_tool, db)
        out = {}
        for tool, args in (("hmmsearch", [hmmsearch, "--cpu", "0"]), ("cudp", [cudp, "--backend", backend])):
            o, t, d, p = (os.path.join(work, "%s.%s" % (tool, x)) for x in ("txt", "tbl", "dom", "pfam"))
            pfam = ["--pfamtblout", p]
            a = os.path.join(work, "%s.sto" % tool)
            noali = ["--noali"] if case.get("noali") else []
            msa = [] if case.get("no_msa") else ["-A", a]
            subprocess.run(args + noali + ["-o", o] + msa + ["--tblout", t, "--domtblout", d] + pfam +
                           case["options"] + [models, db], check=True)
            out[tool] = (o, t, d, p, a)
        if case.get("exact"):
            failures = compare_exactly(case_name, case, out, ntargets)
            for f in failures:
                print("FAIL", f)
            return 1 if failures else 0

        tbl_h, tbl_c = table(out["hmmsearch"][1], 2), table(out["cudp"][1], 2)
        dom_h, dom_c = table(out["hmmsearch"][2], 3), table(out["cudp"][2], 3)
        stats_h = statistics(out["hmmsearch"][0])
        tbl_rows = compare_table("tblout", TBL_COLUMNS, tbl_h, tbl_c, failures)
        dom_rows = compare_table("domtblout", DOM_COLUMNS, dom_h, dom_c, failures)
        text_h, text_c = main_text(out["hmmsearch"][0], "hmmsearch"), main_text(out["cudp"][0], "cudp")
        text_lines = compare_lines("main output", text_h, text_c, failures)
        pfam_h, pfam_c = pfam_text(out["hmmsearch"][3]), pfam_text(out["cudp"][3])
        pfam_lines = compare_lines("--pfamtblout", pfam_h, pfam_c, failures)
        sto_h, sto_c = stockholm_text(out["hmmsearch"][4]), stockholm_text(out["cudp"][4])
        sto_lines = compare_lines("-A alignment", sto_h, sto_c, failures)
        shown = sum(1 for l in text_h if l.startswith("  == domain "))
        aligned = sum(1 for l in sto_h if l.startswith("#=GS ") and " DE " in l)

        hits = sum(len(r) for r in tbl_h[0].values())
        widened = 0
        for q, rows_h in tbl_h[0].items():
            column = len(rows_h[0]) - len(rows_h[0][len(rows_h[0].split()[0]):].lstrip()) - 1 if rows_h else 0
            if rows_h and column > max(20, max(len(r.split()[0]) for r in rows_h)):
                widened += 1  # the name column is wider than every reported name: unreported hits widened it
        print("case %s, backend %s: %d targets, %d queries; compared exactly: %d tblout rows, %d domtblout rows, "
              "%d main-output lines (%d domain alignments), %d --pfamtblout lines, %d -A lines (%d sequences); name "
              "columns widened by unreported hits: %d" %
              (case_name, backend, ntargets, len(stats_h), tbl_rows, dom_rows, text_lines, shown, pfam_lines,
               sto_lines, aligned, widened))
        if hits == 0 or dom_rows == 0:
            failures.append("no hits (%d tblout rows, %d domtblout rows): the comparison tested nothing" %
                            (hits, dom_rows))
        if not case.get("noali") and shown == 0:
            failures.append("no domain alignments in the main output: the comparison tested none")
        if aligned == 0:
            failures.append("no sequences in the -A alignments: the comparison tested none")
        if len(stats_h) != len(case["models"]):
            failures.append("hmmsearch reported %d queries for %d models" % (len(stats_h), len(case["models"])))
        if "pieces" in case:
            flushed = flushed_evalues(out["hmmsearch"][1])
            print("case %s: %d E-values that hmmsearch flushed to 0" % (case_name, flushed))
            if flushed == 0:
                failures.append("no E-value in the subnormal range: the case no longer tests the flush to zero")
        if case.get("random_first") and widened == 0:
            failures.append("no name column was widened by unreported hits: the case no longer tests that rule")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
