#!/usr/bin/env python3
"""Writes the bundled DNA pair of cudp-align's example data (apps/data/align/dna_a.fa, dna_b.fa).

dna_a: 3000 random bases (fixed seed) with a few IUPAC ambiguity codes; dna_b: a mutated copy of it (about 8%
substitutions, short insertions and deletions, a 40-base deletion, 100 bases of new flank at each end), so that
global, semi-global and local alignments all differ.  Deterministic: the same files on every run.

    python3 apps/data/align/make_dna_pair.py apps/data/align
"""
import os
import random
import sys


def wrap(seq, width=60):
    return "\n".join(seq[i:i + width] for i in range(0, len(seq), width)) + "\n"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    rng = random.Random(20240611)
    a = [rng.choice("ACGT") for _ in range(3000)]
    for i in rng.sample(range(3000), 6):
        a[i] = rng.choice("NRYKMSWBDHV")
    b = []
    i = 0
    while i < len(a):
        if i == 1500:
            i += 40  # a long deletion
            continue
        r = rng.random()
        if r < 0.08:
            b.append(rng.choice([c for c in "ACGT" if c != a[i]]))
        elif r < 0.09:
            b.extend(rng.choice("ACGT") for _ in range(rng.randint(1, 4)))  # insertion before a[i]
            b.append(a[i])
        elif r < 0.10:
            i += rng.randint(1, 4)  # deletion
            continue
        else:
            b.append(a[i])
        i += 1
    b = [rng.choice("ACGT") for _ in range(100)] + b + [rng.choice("ACGT") for _ in range(100)]
    with open(os.path.join(out, "dna_a.fa"), "w") as f:
        f.write(">dna_a random 3000 bases, seed 20240611\n" + wrap("".join(a)))
    with open(os.path.join(out, "dna_b.fa"), "w") as f:
        f.write(">dna_b mutated copy of dna_a with new flanks\n" + wrap("".join(b)))


if __name__ == "__main__":
    main()
