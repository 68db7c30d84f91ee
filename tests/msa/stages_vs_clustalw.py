#!/usr/bin/env python3
"""Stages 1 and 2 of cudp's ClustalW (include/cudp/msa/) against clustalw 2.1 itself (python3, standard library).

For every input set (make_msa_data.py) and pairwise mode (full alignments; -QUICKTREE k-tuples) both programs
compute the guide tree: clustalw -INFILE=X -NEWTREE=T [-QUICKTREE], and clustal_stages_driver; on a few sets also
with other pairwise settings (matrices, gap penalties, k-tuple parameters, absolute k-tuple scores). Compared:
  - every pair's score line ("Sequences (i:j) Aligned. Score: ..."), i.e. each distance at clustalw's printed
    precision (the percent identity truncated for full alignments, six digits of the k-tuple score);
  - the .dnd file, byte for byte (branch lengths with five decimals).
With --upgma the UPGMA trees are compared too (-CLUSTERING=UPGMA); Debian's clustalw 2.1 crashes on them (its
RootedGuideTree calls a member function through a null root, which GCC's optimiser turns into a dereference), so
that needs a clustalw built without optimisation (./configure CXXFLAGS="-O0 -fpermissive -std=gnu++98 -w").
With --dump-clustalw=PATH, a clustalw 2.1 built with clustalw_dump.patch (it writes the progressive stage's steps and
similarity matrix to $CW_DUMP), the guide tree read back and rooted (rooted_guide_tree.hpp) is compared too, on
neighbour-joining trees: the steps exactly, the similarities to the last bit (printed with 17 digits).
Exits 1 on any difference (the first lines of each are printed), 0 when all agree.

Usage: stages_vs_clustalw.py DRIVER CLUSTALW HMMER_EXAMPLES LAMBDA_FA [--upgma] [--dump-clustalw=PATH] [--keep DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def score_lines(text):
    return [line.rstrip() for line in text.splitlines() if line.startswith("Sequences (")]


def first_difference(a, b):
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {k + 1}: clustalw {x!r}, cudp {y!r}"
    return f"clustalw has {len(a)} lines, cudp {len(b)}"


def run_pair(args, fasta, work, clustal_flags, driver_flags):
    name = os.path.splitext(os.path.basename(fasta))[0]
    tag = name + "".join(f.replace("-", "_").replace("=", "_").replace(".", "_") for f in clustal_flags)
    ours_tree = os.path.join(work, tag + ".cudp.dnd")
    their_dir = os.path.join(work, tag)
    os.makedirs(their_dir, exist_ok=True)
    their_input = os.path.join(their_dir, name + ".fa")
    shutil.copyfile(fasta, their_input)
    their_tree = os.path.join(their_dir, name + ".dnd")
    their = subprocess.run([args.clustalw, f"-INFILE={their_input}", f"-NEWTREE={their_tree}"] + clustal_flags,
                           capture_output=True, text=True)
    if their.returncode != 0 or not os.path.exists(their_tree):
        return [f"{tag}: clustalw failed (exit {their.returncode}): {their.stderr.strip()[:200]}"]
    ours = subprocess.run([args.driver, fasta, ours_tree] + driver_flags, capture_output=True, text=True)
    if ours.returncode != 0:
        return [f"{tag}: clustal_stages_driver failed (exit {ours.returncode}): {ours.stderr.strip()[:200]}"]
    problems = []
    a, b = score_lines(their.stdout), score_lines(ours.stdout)
    if not a:
        problems.append(f"{tag}: no score lines in clustalw's output")
    elif a != b:
        problems.append(f"{tag}: pair scores differ, {first_difference(a, b)}")
    with open(their_tree, "rb") as f:
        t1 = f.read()
    with open(ours_tree, "rb") as f:
        t2 = f.read()
    if t1 != t2:
        k = next((i for i, (x, y) in enumerate(zip(t1, t2)) if x != y), min(len(t1), len(t2)))
        problems.append(f"{tag}: .dnd differs at byte {k}: clustalw {t1[max(0, k - 30):k + 30]!r}, "
                        f"cudp {t2[max(0, k - 30):k + 30]!r}")
    print(f"{tag}: {len(a)} pairs, tree of {len(t1)} bytes: {'ok' if not problems else 'DIFFERENT'}")
    return problems


def compare_rooting(args, fasta, work, clustal_flags, driver_flags):
    name = os.path.splitext(os.path.basename(fasta))[0]
    tag = "rooting_" + name + "".join(f.replace("-", "_") for f in clustal_flags)
    their_dir = os.path.join(work, tag)
    os.makedirs(their_dir, exist_ok=True)
    their_input = os.path.join(their_dir, name + ".fa")
    shutil.copyfile(fasta, their_input)
    their_dump, our_dump = os.path.join(their_dir, "clustalw.dump"), os.path.join(their_dir, "cudp.dump")
    env = dict(os.environ, CW_DUMP=their_dump)
    their = subprocess.run([args.dump_clustalw, f"-INFILE={their_input}", "-ALIGN"] + clustal_flags,
                           capture_output=True, text=True, env=env)
    if their.returncode != 0 or not os.path.exists(their_dump):
        return [f"{tag}: the instrumented clustalw failed (exit {their.returncode})"]
    ours = subprocess.run([args.driver, fasta, os.path.join(their_dir, "cudp.dnd"), f"--dump={our_dump}"]
                          + driver_flags, capture_output=True, text=True)
    if ours.returncode != 0:
        return [f"{tag}: clustal_stages_driver failed: {ours.stderr.strip()[:200]}"]
    with open(their_dump) as f:
        a = [line.rstrip() for line in f if not line.startswith("weights")]
    with open(our_dump) as f:
        b = [line.rstrip() for line in f]
    print(f"{tag}: {sum(1 for x in a if x.startswith('step'))} steps: {'ok' if a == b else 'DIFFERENT'}")
    return [] if a == b else [f"{tag}: steps or similarities differ, {first_difference(a, b)[:300]}"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("driver")
    ap.add_argument("clustalw")
    ap.add_argument("hmmer_examples")
    ap.add_argument("lambda_fa")
    ap.add_argument("--upgma", action="store_true")
    ap.add_argument("--dump-clustalw")
    ap.add_argument("--keep", help="write the inputs and trees here and keep them")
    args = ap.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="msa_stages_")
    try:
        data = os.path.join(work, "data")
        subprocess.run([sys.executable, os.path.join(HERE, "make_msa_data.py"), args.hmmer_examples, args.lambda_fa,
                        data], check=True)
        modes = [([], []), (["-QUICKTREE"], ["--quicktree"])]
        if args.upgma:
            modes += [(["-CLUSTERING=UPGMA"], ["--upgma"]),
                      (["-QUICKTREE", "-CLUSTERING=UPGMA"], ["--quicktree", "--upgma"])]
        problems, compared = [], 0
        settings = [["-PWMATRIX=BLOSUM"], ["-PWMATRIX=PAM", "-PWGAPOPEN=5", "-PWGAPEXT=0.5"], ["-PWMATRIX=ID"],
                    ["-PWDNAMATRIX=CLUSTALW"], ["-TRANSWEIGHT=0.2", "-PWGAPEXT=3"],
                    ["-QUICKTREE", "-KTUPLE=2", "-WINDOW=3", "-TOPDIAGS=3", "-PAIRGAP=2"],
                    ["-QUICKTREE", "-SCORE=ABSOLUTE"], ["-QUICKTREE", "-KTUPLE=1", "-TOPDIAGS=10"]]
        for fasta in ["globins4.fa", "fn3.fa", "lambda_indels.fa", "dna_ambiguous.fa"]:
            for flags in settings:
                problems += run_pair(args, os.path.join(data, fasta), work, flags,
                                     ["--quicktree" if f == "-QUICKTREE" else f for f in flags])
                compared += 1
        for fasta in sorted(os.listdir(data)):
            for clustal_flags, driver_flags in modes:
                problems += run_pair(args, os.path.join(data, fasta), work, clustal_flags, driver_flags)
                compared += 1
                if args.dump_clustalw and "--upgma" not in driver_flags:
                    problems += compare_rooting(args, os.path.join(data, fasta), work, clustal_flags, driver_flags)
                    compared += 1
        for p in problems:
            print(p, file=sys.stderr)
        print(f"{compared} comparisons, {len(problems)} differences")
        return 1 if problems or compared == 0 else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
