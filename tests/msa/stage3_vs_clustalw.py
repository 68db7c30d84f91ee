#!/usr/bin/env python3
"""Oracle test of the progressive stage: for each input set and option list, clustalw 2.1 writes its guide tree
(a plain run, or a -QUICKTREE one for the *_quicktree sets), then aligns from that tree (-ALIGN -USETREE); the
stage-3 driver, given the same sequences and .dnd, must print the same .aln byte for byte.

Also end to end: the driver running stages 1 and 2 itself (-CLUSTERING=NJ, with -QUICKTREE for the *_quicktree
sets) must print the plain run's .aln. With --reference (a clustalw 2.1 that survives -CLUSTERING=UPGMA, which
Debian's does not), UPGMA runs are compared the same way, full and -QUICKTREE.

Usage: stage3_vs_clustalw.py --driver PATH --clustalw PATH --data-script PATH --tutorial DIR --lambda FA_GZ
                             --work DIR [--only NAME] [--reference CLUSTALW]
Exits 1 on any difference (printing the first differing line) or when nothing was compared.
"""
import argparse
import os
import shutil
import subprocess
import sys

from msa_files import first_difference

PROTEIN_SETS = ["globins4", "globins45", "fn3", "pkinase", "two", "identical", "ambiguous", "lower_case", "long_names",
                "gapped_input", "close_pairs", "fn3_quicktree"]
DNA_SETS = ["lambda_close", "lambda_long", "lambda_far", "ambiguous_dna", "mixed_case_dna", "lambda_close_quicktree"]
# Random families: defaults, and one other option list each.
RANDOM_SETS = [f"random_{k}" for k in range(12)]
RANDOM_OPTIONS = [["-MAXDIV=60"], ["-GAPOPEN=3", "-GAPEXT=0.1"], ["-NOVGAP"], ["-MATRIX=BLOSUM"], ["-NEGATIVE"],
                  ["-GAPDIST=1"]]
# Guide trees written by hand for globins4 (no plain run): without branch lengths (equal weights, similarities all
# 99, one member per matrix series), and rooted with lengths (no rooting step).
HAND_TREES = {"hand_no_lengths": "((HBB_HUMAN,HBA_HUMAN),(MYG_PHYCA,GLB5_PETMA));\n",
              "hand_rooted": "((HBB_HUMAN:0.1,HBA_HUMAN:0.2):0.05,(MYG_PHYCA:0.3,GLB5_PETMA:0.25):0.05);\n"}
HAND_OPTIONS = [[], ["-MATRIX=BLOSUM"], ["-MATRIX=PAM"], ["-MAXDIV=0"]]
# Sets whose guide tree comes from k-tuple distances (a copy of the set under another name, for its own .dnd).
QUICKTREE_COPIES = {"fn3_quicktree": "fn3", "lambda_close_quicktree": "lambda_close"}
PROTEIN_OPTIONS = [[], ["-GAPOPEN=5", "-GAPEXT=1"], ["-GAPOPEN=15", "-GAPEXT=0.05"], ["-MAXDIV=50"], ["-MAXDIV=0"],
                   ["-MATRIX=BLOSUM"], ["-MATRIX=PAM"], ["-MATRIX=ID"], ["-ENDGAPS"], ["-NOHGAP", "-NOPGAP"],
                   ["-GAPDIST=8"], ["-HGAPRESIDUES=GPS"], ["-NOVGAP"], ["-NOVGAP", "-GAPDIST=2"], ["-NEGATIVE"],
                   ["-NOWEIGHTS"], ["-OUTORDER=INPUT"]]
DNA_OPTIONS = [[], ["-DNAMATRIX=CLUSTALW"], ["-GAPOPEN=10", "-GAPEXT=2"], ["-TRANSWEIGHT=1"], ["-MAXDIV=60"],
               ["-MAXDIV=0"], ["-NEGATIVE"], ["-NOWEIGHTS"], ["-OUTORDER=INPUT"]]


def run(cmd, cwd):
    result = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if result.returncode != 0:
        sys.exit(f"stage3_vs_clustalw: {' '.join(cmd)} failed:\n{result.stderr.decode(errors='replace')}")
    return result.stdout


def main():
    parser = argparse.ArgumentParser()
    for name in ["driver", "clustalw", "data-script", "tutorial", "lambda", "work"]:
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--only")
    parser.add_argument("--reference")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    run([sys.executable, args.data_script, args.tutorial, args.__dict__["lambda"], args.work], args.work)
    for copy, original in QUICKTREE_COPIES.items():
        shutil.copyfile(os.path.join(args.work, original + ".fa"), os.path.join(args.work, copy + ".fa"))
    for name, tree in HAND_TREES.items():
        shutil.copyfile(os.path.join(args.work, "globins4.fa"), os.path.join(args.work, name + ".fa"))
        with open(os.path.join(args.work, name + ".dnd"), "w") as f:
            f.write(tree)

    compared, failed = 0, 0

    def compare(label, expected, got):
        nonlocal compared, failed
        compared += 1
        if got == expected:
            print(f"same      {label}")
        else:
            failed += 1
            print(f"DIFFERENT {label}: {first_difference(expected, got)}")

    cases = [(s, o) for s in PROTEIN_SETS for o in PROTEIN_OPTIONS] + [(s, o) for s in DNA_SETS for o in DNA_OPTIONS]
    cases += [(s, o) for k, s in enumerate(RANDOM_SETS) for o in ([], RANDOM_OPTIONS[k % len(RANDOM_OPTIONS)])]
    cases += [(s, o) for s in HAND_TREES for o in HAND_OPTIONS]
    trees = set()
    for name, options in cases:
        if args.only and name != args.only:
            continue
        if name not in trees and name not in HAND_TREES:
            tree_options = ["-QUICKTREE"] if name in QUICKTREE_COPIES else []
            run([args.clustalw, f"-INFILE={name}.fa", f"-OUTFILE={name}.tree_run.aln"] + tree_options, args.work)
            trees.add(name)
        run([args.clustalw, f"-INFILE={name}.fa", "-ALIGN", f"-USETREE={name}.dnd", f"-OUTFILE={name}.oracle.aln"]
            + options, args.work)
        with open(os.path.join(args.work, f"{name}.oracle.aln"), "rb") as f:
            expected = f.read()
        got = run([args.driver, f"{name}.fa", f"{name}.dnd"] + options, args.work)
        compare(f"{name} {' '.join(options) or '(defaults)'}", expected, got)

    # End to end, from the sequences alone.
    for name in sorted(trees):
        quick = ["-QUICKTREE"] if name in QUICKTREE_COPIES else []
        with open(os.path.join(args.work, f"{name}.tree_run.aln"), "rb") as f:
            expected = f.read()
        got = run([args.driver, f"{name}.fa", f"{name}.cudp.dnd", "-CLUSTERING=NJ"] + quick, args.work)
        compare(f"{name} stages 1-3, neighbour-joining {' '.join(quick)}", expected, got)
        if not args.reference or name in QUICKTREE_COPIES:
            continue
        for quick in ([], ["-QUICKTREE"]):
            run([args.reference, f"-INFILE={name}.fa", "-CLUSTERING=UPGMA", f"-OUTFILE={name}.upgma.aln"] + quick,
                args.work)
            with open(os.path.join(args.work, f"{name}.upgma.aln"), "rb") as f:
                expected = f.read()
            got = run([args.driver, f"{name}.fa", f"{name}.cudp.dnd", "-CLUSTERING=UPGMA"] + quick, args.work)
            compare(f"{name} stages 1-3, UPGMA {' '.join(quick)}", expected, got)
    print(f"{compared} alignments compared, {failed} different")
    if compared == 0 or failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
