#!/usr/bin/env python3
"""cudp-msa against clustalw 2.1 end to end: the same command line run by both, each in a folder of its own holding
a copy of the input, must leave the same files (names and bytes): the .aln and .dnd clustalw writes beside its input
by default, or those -OUTFILE and -NEWTREE name. Then cudp-msa's modern options must give the same files as the
clustalw flags they stand for, and standard input and a gzip-compressed input the same alignment.

The inputs come from tests/msa/make_msa_data.py: the hmmer-examples tutorial families with their gaps removed
(globins4, fn3, Pkinase: protein) and pieces of the lambda phage genome (bowtie2-examples) with mutated copies (DNA).

Usage: msa_vs_clustalw.py --cudp-msa PATH --clustalw PATH --data-script PATH --hmmer-examples DIR --lambda FA_GZ
                          --work DIR --group globins4|fn3|pkinase|dna|corner|formats|modern|examples
                          [--examples DIR] [--reference CLUSTALW]
--examples: apps/data/msa, cudp-msa's bundled examples (family.fa, dna.fa), for the group of that name.
--reference: a clustalw 2.1 that survives -CLUSTERING=UPGMA (Debian's crashes), for the group "upgma", which runs
against it instead of --clustalw.
Exits 1 on any difference (printing the first differing line of each) or when nothing was compared.
"""
import argparse
import gzip
import os
import shutil
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "msa"))
from msa_files import first_difference  # noqa: E402

# (set, clustalw flags); the input is always -INFILE=SET.fa in the run's own folder.
PROTEIN_OPTIONS = [[], ["-QUICKTREE"], ["-GAPOPEN=5", "-GAPEXT=1"], ["-MATRIX=BLOSUM"], ["-MATRIX=PAM"],
                   ["-MATRIX=ID"], ["-PWMATRIX=BLOSUM", "-PWGAPOPEN=5", "-PWGAPEXT=0.5"], ["-ENDGAPS"],
                   ["-MAXDIV=50"], ["-MAXDIV=0"], ["-NOWEIGHTS"], ["-NOPGAP", "-NOHGAP"], ["-GAPDIST=8"],
                   ["-OUTORDER=INPUT"], ["-QUICKTREE", "-KTUPLE=2", "-WINDOW=3", "-TOPDIAGS=3", "-PAIRGAP=5"],
                   ["-QUICKTREE", "-SCORE=ABSOLUTE"], ["-NEGATIVE"], ["-ALIGN", "-OUTFILE=out.aln", "-NEWTREE=out.dnd"]]
DNA_OPTIONS = [[], ["-QUICKTREE"], ["-DNAMATRIX=CLUSTALW", "-PWDNAMATRIX=CLUSTALW"], ["-GAPOPEN=10", "-GAPEXT=2"],
               ["-PWGAPOPEN=10", "-PWGAPEXT=2"], ["-TRANSWEIGHT=1"], ["-MAXDIV=60"], ["-ENDGAPS"], ["-NOWEIGHTS"],
               ["-OUTORDER=INPUT"], ["-QUICKTREE", "-KTUPLE=3"]]
GROUPS = {
    "globins4": [("globins4", o) for o in PROTEIN_OPTIONS],
    "fn3": [("fn3", o) for o in PROTEIN_OPTIONS],
    "pkinase": [("pkinase", o) for o in PROTEIN_OPTIONS],
    "dna": [(s, o) for s in ["lambda_close", "lambda_mixed", "lambda_far"] for o in DNA_OPTIONS]
    + [("lambda_indels", []), ("lambda_indels", ["-QUICKTREE"])],
    "formats": [(s, o) for s in ["fn3", "lambda_close"] for o in [
        ["-OUTPUT=GCG"], ["-OUTPUT=GDE"], ["-OUTPUT=PIR"], ["-OUTPUT=PHYLIP"], ["-OUTPUT=NEXUS"], ["-OUTPUT=FASTA"],
        ["-OUTPUT=CLUSTAL", "-SEQNOS=ON"], ["-SEQNO_RANGE=ON", "-RANGE=20,90"], ["-OUTPUT=GDE", "-CASE=UPPER"],
        ["-OUTPUT=GCG", "-OUTORDER=INPUT", "-RANGE=5:60"], ["-OUTPUT=PHY", "-SEQNO_RANGE=ON"],
        ["-OUTPUT=NEX", "-QUICKTREE"], ["-OUTPUT=fas", "-OUTFILE=out.fa", "-NEWTREE=out.dnd", "-ALIGN"]]],
    # Debian's clustalw 2.1 crashes on UPGMA guide trees: this group runs against --reference, a clustalw 2.1 built
    # from source (tests/msa/CMakeLists.txt, CUDP_CLUSTALW_REFERENCE).
    "upgma": [(s, ["-CLUSTERING=UPGMA"] + o) for s in ["globins4", "fn3", "pkinase", "lambda_close", "lambda_mixed"]
              for o in [[], ["-QUICKTREE"], ["-NOWEIGHTS"], ["-MAXDIV=0"]]]
    + [(s, ["-CLUSTERING=UPGMA"]) for s in ["pair", "identical", "triple_identical", "short_dna"]],
    "examples": [(s, o) for s in ["family", "dna"] for o in [[], ["-QUICKTREE"], ["-OUTORDER=INPUT"]]],
    "corner": [(s, o) for s in ["pair", "identical", "triple_identical", "one_residue", "odd_letters", "input_gaps",
                                "dna_ambiguous", "short_dna"] for o in [[], ["-QUICKTREE"]]]
    + [("globins4", ["-TYPE=DNA"]), ("lambda_close", ["-TYPE=PROTEIN"]), ("globins4", ["/infile_is_set", "-quiet"]),
       ("fn3", ["-newtree=only.dnd"]), ("globins4", ["-align", "-quicktree", "-type=p", "-output=clustal"])],
}
# (set, clustalw flags, the same in cudp-msa's own options); cudp-msa writes out.aln and out.dnd.
MODERN = [
    ("globins4", [], []),
    ("fn3", ["-QUICKTREE"], ["--quicktree"]),
    ("pkinase", ["-GAPOPEN=5", "-GAPEXT=1", "-MATRIX=BLOSUM"],
     ["--gap-open", "5", "--gap-extend", "1", "--matrix", "blosum"]),
    ("fn3", ["-PWMATRIX=PAM", "-PWGAPOPEN=8", "-PWGAPEXT=0.2", "-MAXDIV=40", "-ENDGAPS", "-NOWEIGHTS"],
     ["--pw-matrix", "pam", "--pw-gap-open", "8", "--pw-gap-extend", "0.2", "--maxdiv", "40", "--end-gaps",
      "--no-weights"]),
    ("lambda_close", ["-TYPE=DNA", "-DNAMATRIX=CLUSTALW", "-TRANSWEIGHT=0.2", "-OUTORDER=INPUT"],
     ["--type", "dna", "--dna-matrix", "clustalw", "--transition-weight", "0.2", "--output-order", "input"]),
    ("lambda_mixed", ["-QUICKTREE", "-KTUPLE=3", "-SCORE=ABSOLUTE"],
     ["--quicktree", "--ktuple", "3", "--score", "absolute", "--threads", "2", "--backend", "host"]),
    ("pkinase", ["-OUTPUT=GCG", "-SEQNOS=ON"], ["--format", "msf", "--seqnos"]),
    ("lambda_close", ["-OUTPUT=NEXUS", "-RANGE=10,200", "-SEQNO_RANGE=ON"],
     ["--format", "nexus", "--range", "10,200", "--seqno-range"]),
    ("globins4", ["-OUTPUT=GDE", "-CASE=UPPER", "-OUTORDER=INPUT"],
     ["--format", "gde", "--case", "upper", "--output-order", "input"]),
    ("fn3", ["-OUTPUT=FASTA"], ["--format", "fasta"]),
    ("fn3", ["-OUTPUT=PIR"], ["--format", "pir"]),
    ("fn3", ["-OUTPUT=PHYLIP"], ["--format", "phylip"]),
    ("globins4", ["-NOPGAP", "-NOHGAP", "-GAPDIST=2", "-NEGATIVE"],
     ["--no-pgap", "--no-hgap", "--gap-distance", "2", "--negative"]),
]


def run(cmd, cwd, stdin=None):
    result = subprocess.run(cmd, cwd=cwd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return result.returncode, result.stdout, result.stderr.decode(errors="replace")


def folder_files(folder):
    return {name: open(os.path.join(folder, name), "rb").read() for name in sorted(os.listdir(folder))}


class Check:
    def __init__(self):
        self.failures = 0
        self.compared = 0

    def same_files(self, label, expected, got):
        """expected, got: {name: bytes}."""
        self.compared += 1
        problems = []
        if sorted(expected) != sorted(got):
            problems.append(f"files: clustalw {sorted(expected)}, cudp {sorted(got)}")
        for name in sorted(set(expected) & set(got)):
            if expected[name] != got[name]:
                problems.append(f"{name} differs at {first_difference(expected[name], got[name])}")
        if problems:
            self.failures += 1
            print(f"FAIL: {label}: " + "\n  ".join(problems))
        else:
            print(f"ok: {label}: {', '.join(sorted(expected))}")


def prepared(work, label, data, name, extra=()):
    folder = os.path.join(work, label)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    shutil.copy(os.path.join(data, name + ".fa"), folder)
    for path in extra:
        shutil.copy(path, folder)
    return folder


def clustalw_flags(flags, name):
    # "/infile_is_set": the input given as clustalw's /INFILE= (a path-like word that is a clustalw flag).
    return [f"/INFILE={name}.fa" if f == "/infile_is_set" else f for f in flags]


def main():
    parser = argparse.ArgumentParser()
    for name in ["cudp-msa", "clustalw", "data-script", "hmmer-examples", "lambda", "work", "group"]:
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--examples")
    parser.add_argument("--reference")
    args = parser.parse_args()
    if args.group == "upgma" and not args.reference:
        sys.exit("msa_vs_clustalw.py: the upgma group needs --reference (Debian's clustalw crashes on UPGMA)")
    # CUDP_MSA_ARGS (e.g. "--backend cuda"): added to every cudp-msa command line.
    cudp = [os.path.abspath(args.cudp_msa)] + shlex.split(os.environ.get("CUDP_MSA_ARGS", ""))
    clustalw = os.path.abspath(args.reference if args.group == "upgma" else args.clustalw)
    work = os.path.abspath(os.path.join(args.work, args.group))
    data = os.path.join(work, "data")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    subprocess.run([sys.executable, args.data_script, args.hmmer_examples, getattr(args, "lambda"), data], check=True)
    if args.examples:
        for name in ["family.fa", "dna.fa"]:
            shutil.copy(os.path.join(args.examples, name), data)
    check = Check()

    if args.group in GROUPS:
        for k, (name, flags) in enumerate(GROUPS[args.group]):
            flags = clustalw_flags(flags, name)
            if not any(f.lower().startswith(("-infile=", "/infile=")) for f in flags):
                flags = [f"-INFILE={name}.fa"] + flags
            label = f"{name} {' '.join(flags)}"
            a = prepared(work, f"{k}_clustalw", data, name)
            b = prepared(work, f"{k}_cudp", data, name)
            rc, _, err = run([clustalw] + flags, a)
            if rc != 0:
                print(f"FAIL: {label}: clustalw exit status {rc}: {err.strip()}")
                check.failures += 1
                continue
            rc, out, err = run(cudp + flags, b)
            if rc != 0 or out or err:
                print(f"FAIL: {label}: cudp-msa exit status {rc}, {len(out)} bytes on standard output: {err.strip()}")
                check.failures += 1
                continue
            check.same_files(label, folder_files(a), folder_files(b))
            # -USETREE on clustalw's own guide tree: the same .aln, and no .dnd written.
            dnd = os.path.join(a, name + ".dnd")
            if not flags[1:] and os.path.exists(dnd):
                a2 = prepared(work, f"{k}_clustalw_usetree", data, name, [dnd])
                b2 = prepared(work, f"{k}_cudp_usetree", data, name, [dnd])
                use = [f"-INFILE={name}.fa", f"-USETREE={name}.dnd"]
                run([clustalw] + use, a2)
                rc, _, err = run(cudp + use, b2)
                if rc != 0:
                    print(f"FAIL: {label} -USETREE: cudp-msa exit status {rc}: {err.strip()}")
                    check.failures += 1
                else:
                    check.same_files(f"{label} -USETREE", folder_files(a2), folder_files(b2))

    if args.group == "modern":
        for k, (name, flags, options) in enumerate(MODERN):
            label = f"{name} {' '.join(options) or '(defaults)'}"
            a = prepared(work, f"m{k}_clustalw", data, name)
            b = prepared(work, f"m{k}_cudp", data, name)
            run([clustalw, f"-INFILE={name}.fa", "-OUTFILE=out.aln", "-NEWTREE=out.dnd", "-ALIGN"] + flags, a)
            rc, out, err = run(cudp + [f"{name}.fa", "-o", "out.aln", "--guidetree-out", "out.dnd"] + options, b)
            if rc != 0 or out or err:
                print(f"FAIL: {label}: cudp-msa exit status {rc}, {len(out)} bytes on standard output: {err.strip()}")
                check.failures += 1
                continue
            check.same_files(label, folder_files(a), folder_files(b))
            expected = folder_files(a)["out.aln"]
            # The alignment on standard output, from standard input, and from a gzip-compressed file.
            fa = os.path.join(b, name + ".fa")
            with open(fa, "rb") as f:
                rc, out, err = run(cudp + ["-"] + options, b, stdin=f)
            check.same_files(f"{label}, standard input to standard output", {"aln": expected}, {"aln": out})
            with open(fa, "rb") as f, gzip.open(fa + ".gz", "wb") as g:
                g.write(f.read())
            rc, out, err = run(cudp + [fa + ".gz"] + options, b)
            check.same_files(f"{label}, gzip input", {"aln": expected}, {"aln": out})

    print(f"{check.compared} comparisons, {check.failures} failure(s)")
    if check.compared == 0 or check.failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
