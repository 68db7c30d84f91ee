#!/usr/bin/env python3
"""cudp-msa against clustalw 2.1 end to end: the same command line run by both, each in a folder of its own holding
a copy of the input, must leave the same files (names and bytes): the .aln and .dnd clustalw writes beside its input
by default, or those -OUTFILE and -NEWTREE name. Then cudp-msa's modern options must give the same files as the
clustalw flags they stand for, and standard input and a gzip-compressed input the same alignment.

The inputs come from tests/msa/make_msa_data.py: the hmmer-examples tutorial families with their gaps removed
(globins4, fn3, Pkinase: protein) and pieces of the lambda phage genome (bowtie2-examples) with mutated copies (DNA).

Usage: msa_vs_clustalw.py --cudp-msa PATH --clustalw PATH --data-script PATH --hmmer-examples DIR --lambda FA_GZ
                          --work DIR --group globins4|fn3|pkinase|dna|corner|formats|modern|examples|matrices
                          [--examples DIR] [--reference CLUSTALW] [--ncbi-data DIR]
--examples: apps/data/msa, cudp-msa's bundled examples (family.fa, dna.fa), for the group of that name.
--ncbi-data: NCBI's matrix files (package ncbi-data), for the group "matrices": -MATRIX=file and -PWMATRIX=file with
those files, files made from them (a CLUSTAL_SERIES, decimal values, BLOSUM62 without its J), DNA matrix files.
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
# Matrix files (group "matrices"): NCBI's, as ncbi-data installs them, and files written from them by matrix_files().
MATRIX_OPTIONS = [["-MATRIX=BLOSUM62", "-PWMATRIX=BLOSUM62"], ["-MATRIX=series.txt"], ["-MATRIX=partial_series.txt"],
                  ["-MATRIX=BLOSUM50.thirds", "-PWMATRIX=BLOSUM50.thirds"], ["-MATRIX=PAM250", "-NEGATIVE"],
                  ["-PWMATRIX=BLOSUM45", "-PWGAPOPEN=5"], ["-MATRIX=BLOSUM62.noJ", "-QUICKTREE"]]
MATRIX_CASES = ([(s, o) for s in ["globins4", "fn3", "pkinase", "fn3_bzx"] for o in MATRIX_OPTIONS]
                + [("fn3_bzx", ["-MATRIX=BLOSUM62.noJ", "-PWMATRIX=BLOSUM62.noJ"]),
                   ("lambda_close", ["-DNAMATRIX=BLOSUM62", "-PWDNAMATRIX=BLOSUM62"]),
                   ("lambda_mixed", ["-MATRIX=series.txt", "-PWMATRIX=PAM30"])])
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


def matrix_files(ncbi, folder):
    """NCBI's matrices, and files made from them: series of BLOSUMs by identity (all of 0-100, and a range that
    leaves identities out), BLOSUM50 a third as large in decimals, BLOSUM62 without the letter J."""
    os.makedirs(folder, exist_ok=True)
    for name in ["BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "PAM30", "PAM250"]:
        shutil.copy(os.path.join(ncbi, name), folder)
    with open(os.path.join(folder, "series.txt"), "w") as f:
        f.write("# BLOSUM by percent identity\nCLUSTAL_SERIES\n\nMATRIX 81 100 BLOSUM80\nMATRIX 61 80 BLOSUM62\n"
                "MATRIX 41 60 BLOSUM50\nMATRIX 0 40 BLOSUM45\n")
    with open(os.path.join(folder, "partial_series.txt"), "w") as f:
        f.write("CLUSTAL_SERIES\nMATRIX 45 70 PAM30\nMATRIX 70 100 BLOSUM80\n")

    def rows(name):
        return [line.split() for line in open(os.path.join(ncbi, name)) if line.strip() and line[0] != "#"]

    header, *body = rows("BLOSUM50")
    with open(os.path.join(folder, "BLOSUM50.thirds"), "w") as f:
        f.write("   " + "  ".join(header) + "\n")
        for row in body:
            f.write(row[0] + " " + " ".join(f"{int(v) / 3:.2f}" for v in row[1:]) + "\n")
    header, *body = rows("BLOSUM62")
    j = header.index("J")
    with open(os.path.join(folder, "BLOSUM62.noJ"), "w") as f:
        f.write("   " + "  ".join(header[:j] + header[j + 1:]) + "\n")
        for row in body:
            if row[0] != "J":
                f.write(" ".join(row[: j + 1] + row[j + 2:]) + "\n")
    return [os.path.join(folder, n) for n in sorted(os.listdir(folder))]


def ran_both(check, label, clustalw_command, cudp_command, clustalw_folder, cudp_folder, notes=False):
    """Runs clustalw and cudp-msa, each in its folder; False (a failure counted) unless both exit 0 and cudp-msa
    prints nothing on standard output, nor on standard error but its own notes where `notes`."""
    rc, _, err = run(clustalw_command, clustalw_folder)
    if rc != 0:
        print(f"FAIL: {label}: clustalw exit status {rc}: {err.strip()}")
        check.failures += 1
        return False
    rc, out, err = run(cudp_command, cudp_folder)
    if rc != 0 or out or any(not (notes and line.startswith("cudp-msa: ")) for line in err.splitlines()):
        print(f"FAIL: {label}: cudp-msa exit status {rc}, {len(out)} bytes on standard output: {err.strip()}")
        check.failures += 1
        return False
    return True


def clustalw_flags(flags, name):
    # "/infile_is_set": the input given as clustalw's /INFILE= (a path-like word that is a clustalw flag).
    return [f"/INFILE={name}.fa" if f == "/infile_is_set" else f for f in flags]


def main():
    parser = argparse.ArgumentParser()
    for name in ["cudp-msa", "clustalw", "data-script", "hmmer-examples", "lambda", "work", "group"]:
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--examples")
    parser.add_argument("--reference")
    parser.add_argument("--ncbi-data")
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
            if not ran_both(check, label, [clustalw] + flags, cudp + flags, a, b):
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

    if args.group == "matrices":
        if not args.ncbi_data:
            sys.exit("msa_vs_clustalw.py: the matrices group needs --ncbi-data")
        matrices = matrix_files(args.ncbi_data, os.path.join(work, "matrices"))
        inputs = {os.path.basename(m) for m in matrices} | {"matrix.out", "temp.out"}

        def outputs(folder):
            # clustalw writes a series' members to matrix.out and temp.out (debugging prints left in): not outputs.
            return {n: v for n, v in folder_files(folder).items() if n not in inputs and not n.endswith(".fa")}

        produced = {}
        for k, (name, flags) in enumerate(MATRIX_CASES):
            flags = [f"-INFILE={name}.fa"] + flags
            label = f"{name} {' '.join(flags)}"
            a = prepared(work, f"x{k}_clustalw", data, name, matrices)
            b = prepared(work, f"x{k}_cudp", data, name, matrices)
            # Notes on standard error are expected here (letters clustalw does not know, DNA files it does not use).
            if not ran_both(check, label, [clustalw] + flags, cudp + flags, a, b, notes=True):
                continue
            produced[(name, tuple(flags[1:]))] = outputs(a)
            check.same_files(label, outputs(a), outputs(b))
        # The cases must tell the readings apart: BLOSUM62's J shifts its B/Z/X rows (fn3_bzx aligns otherwise
        # without it), and a series is not one matrix.
        for one, two in [(("fn3_bzx", ("-MATRIX=BLOSUM62", "-PWMATRIX=BLOSUM62")),
                          ("fn3_bzx", ("-MATRIX=BLOSUM62.noJ", "-PWMATRIX=BLOSUM62.noJ"))),
                         (("pkinase", ("-MATRIX=series.txt",)), ("pkinase", ("-MATRIX=BLOSUM62", "-PWMATRIX=BLOSUM62")))]:
            if produced.get(one) is not None and produced.get(one) == produced.get(two):
                print(f"FAIL: clustalw gives the same files for {one} and {two}: the case tests nothing")
                check.failures += 1
        # The modern options name the same files.
        a = prepared(work, "xm_clustalw", data, "fn3", matrices)
        b = prepared(work, "xm_cudp", data, "fn3", matrices)
        run([clustalw, "-INFILE=fn3.fa", "-ALIGN", "-OUTFILE=out.aln", "-NEWTREE=out.dnd", "-MATRIX=series.txt",
             "-PWMATRIX=BLOSUM45"], a)
        run(cudp + ["fn3.fa", "-o", "out.aln", "--guidetree-out", "out.dnd", "--matrix", "series.txt",
                    "--pw-matrix", "BLOSUM45"], b)
        check.same_files("fn3 --matrix series.txt --pw-matrix BLOSUM45", outputs(a), outputs(b))

    print(f"{check.compared} comparisons, {check.failures} failure(s)")
    if check.compared == 0 or check.failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
