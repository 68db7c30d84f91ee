#!/usr/bin/env python3
"""ClustalW 2.1's alignment output formats against cudp's writers (alignment_format_driver), byte for byte.

Two kinds of run, each in every format (-OUTPUT=CLUSTAL, GCG, GDE, PIR, PHYLIP, NEXUS, FASTA):
- `clustalw -CONVERT` of hmmer-examples' Stockholm alignments (globins4, fn3, Pkinase, the DNA family MADE1, whose
  names pass 30 characters) as aligned FASTA, and of unaligned sequences (rows of unequal length), under the output
  options (-CASE, -SEQNOS, -SEQNO_RANGE, -RANGE, -OUTORDER);
- plain alignment runs of unaligned sequences (globins45, and the gapless sequences of globins4, fn3, MADE1 and
  Pkinase), aligned order and input order, against the driver's -ALIGN (stages 1 to 3, whose final weights GCG
  reports), with and without -NOWEIGHTS.
"""
import argparse
import os
import subprocess
import sys

from msa_files import first_difference, stockholm_rows

FORMATS = ["CLUSTAL", "GCG", "GDE", "PIR", "PHYLIP", "NEXUS", "FASTA"]
CONVERT_OPTIONS = [
    [],
    ["-CASE=UPPER"],
    ["-CASE=LOWER", "-OUTORDER=INPUT"],
    ["-SEQNOS=ON"],
    ["-SEQNO_RANGE=ON"],
    ["-RANGE=20,90"],
    ["-RANGE=20,90", "-SEQNOS=ON", "-SEQNO_RANGE=ON", "-CASE=UPPER"],
    ["-RANGE=1,500", "-SEQNO_RANGE=ON"],  # past the end: pulled back
    ["-RANGE=33:33", "-SEQNOS=ON"],
    ["-RANGE=90,20", "-SEQNO_RANGE=ON"],  # out of order: ignored
]
ALIGN_OPTIONS = [["-OUTORDER=ALIGNED"], ["-OUTORDER=INPUT"], ["-SEQNOS=ON", "-SEQNO_RANGE=ON", "-RANGE=5,60"],
                 ["-NOWEIGHTS"]]


def read_fasta(path):
    records = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(">"):
                records.append([line[1:].split()[0], ""])
            elif records:
                records[-1][1] += line.strip()
    return [tuple(r) for r in records]


def write_fasta(path, records):
    with open(path, "w") as f:
        for name, text in records:
            f.write(f">{name}\n{text}\n")


def ungapped(records):
    return [(n, t.replace("-", "")) for n, t in records]


def make_data(tutorial, work):
    """Writes the inputs; returns (aligned or ragged files for -CONVERT, unaligned files for alignment runs)."""
    convert, align = [], []
    for family in ["globins4", "fn3", "Pkinase", "MADE1"]:
        records = [(n, row.replace(".", "-")) for n, row in stockholm_rows(os.path.join(tutorial, family + ".sto"))]
        path = os.path.join(work, family + ".afa")
        write_fasta(path, records)
        convert.append(path)
    for family, count in [("globins4", None), ("fn3", 20), ("MADE1", 24), ("Pkinase", 8)]:
        records = ungapped([(n, row.replace(".", "-")) for n, row in stockholm_rows(os.path.join(tutorial, family + ".sto"))])[:count]
        path = os.path.join(work, family + ".fa")
        write_fasta(path, records)
        align.append(path)
    convert.append(os.path.join(work, "MADE1.fa"))  # rows of unequal length
    globins45 = os.path.join(work, "globins45.fa")
    write_fasta(globins45, read_fasta(os.path.join(tutorial, "globins45.fa")))
    align.append(globins45)
    return convert, align


def run(command, cwd):
    result = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.decode()[-500:]}")
    return result.stdout


def compare(args, work, path, fmt, options, align):
    reference = os.path.join(work, "reference.out")
    if os.path.exists(reference):
        os.remove(reference)
    verb = [] if align else ["-CONVERT"]
    run([args.clustalw, "-INFILE=" + path, *verb, "-OUTPUT=" + fmt, *options, "-OUTFILE=" + reference], work)
    with open(reference, "rb") as f:
        expected = f.read()
    got = run([args.driver, path, "-OUTPUT=" + fmt, *options, *(["-ALIGN"] if align else [])], work)
    if expected == got:
        return None
    return f"{os.path.basename(path)} -OUTPUT={fmt} {' '.join(options)}{' (aligned)' if align else ''}: " + \
        first_difference(expected, got)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--driver", required=True)
    parser.add_argument("--clustalw", required=True)
    parser.add_argument("--tutorial", required=True, help="hmmer-examples' tutorial directory")
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    args.driver, args.work = os.path.abspath(args.driver), os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)
    convert, align = make_data(args.tutorial, args.work)

    cases = [(p, f, o, False) for p in convert for o in CONVERT_OPTIONS for f in FORMATS]
    cases += [(p, f, o, True) for p in align for o in ALIGN_OPTIONS for f in FORMATS]
    failures = [m for m in (compare(args, args.work, *case) for case in cases) if m]
    for message in failures[:20]:
        print("MISMATCH", message)
    print(f"{len(cases) - len(failures)} of {len(cases)} outputs identical to clustalw's")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
