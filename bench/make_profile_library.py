#!/usr/bin/env python3
"""A generated profile library and proteome for the hmmscan benchmark (bench/hmmscan_bench.sh).

Each family has a random ancestor (HMMER's background composition, length from 40 to 1000, log-uniform) and an
alignment of 12 members: point substitutions at 10-40% and a few short indels, written as Stockholm with gaps.
The proteome: random background proteins (lognormal lengths around 350), with one member of every k-th family
planted in place of a background protein, so that the search reports hits.

Usage: make_profile_library.py FAMILIES PROTEINS OUTDIR [SEED]
Writes OUTDIR/aln/NNNNN.sto (one alignment per family, for hmmbuild) and OUTDIR/proteome.fa.
"""
import math
import os
import random
import sys

AMINO = "ACDEFGHIKLMNPQRSTVWY"
BACKGROUND = [0.0787945, 0.0151600, 0.0535222, 0.0668298, 0.0397062, 0.0695071, 0.0229198, 0.0590092, 0.0594422,
              0.0963728, 0.0237718, 0.0414386, 0.0482904, 0.0395639, 0.0540978, 0.0683364, 0.0540687, 0.0673417,
              0.0114135, 0.0304133]


def member(rng, ancestor, rate):
    """A gapped copy of the ancestor's columns: substitutions at `rate`, about one deletion run per 80 columns."""
    out, i = [], 0
    while i < len(ancestor):
        if rng.random() < 1.0 / 80:
            run = rng.randint(1, 4)
            out.extend("-" * min(run, len(ancestor) - i))
            i += run
            continue
        out.append(rng.choices(AMINO, BACKGROUND)[0] if rng.random() < rate else ancestor[i])
        i += 1
    return "".join(out[:len(ancestor)])


def main():
    families, proteins, outdir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 11)
    os.makedirs(os.path.join(outdir, "aln"), exist_ok=True)
    planted = {}
    for f in range(families):
        length = int(math.exp(rng.uniform(math.log(40), math.log(1000))))
        ancestor = "".join(rng.choices(AMINO, BACKGROUND, k=length))
        rows = [member(rng, ancestor, rng.uniform(0.1, 0.4)) for _ in range(12)]
        with open(os.path.join(outdir, "aln", "%05d.sto" % f), "w") as out:
            out.write("# STOCKHOLM 1.0\n#=GF ID fam%05d\n\n" % f)
            for n, r in enumerate(rows):
                out.write("fam%05d_%02d %s\n" % (f, n, r))
            out.write("//\n")
        if f % 3 == 0:
            planted[rng.randrange(proteins)] = ("fam%05d_hit" % f, member(rng, ancestor, 0.3).replace("-", ""))
    with open(os.path.join(outdir, "proteome.fa"), "w") as out:
        for p in range(proteins):
            name, seq = planted.get(p, ("prot%06d" % p, None))
            if seq is None:
                n = max(30, min(5000, int(rng.lognormvariate(math.log(350), 0.6))))
                seq = "".join(rng.choices(AMINO, BACKGROUND, k=n))
            out.write(">%s\n" % name)
            for i in range(0, len(seq), 60):
                out.write(seq[i:i + 60] + "\n")


if __name__ == "__main__":
    main()
