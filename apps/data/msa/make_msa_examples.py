#!/usr/bin/env python3
"""Writes cudp-msa's bundled example data (apps/data/msa/): families simulated here, no one else's sequences.

family.fa   24 protein sequences of about 150 residues: a random ancestor (amino-acid background frequencies of
            UniProt) evolved down a random binary tree, each branch with substitutions (more often within a
            biochemical group) and short insertions and deletions, so that the guide tree and the gaps matter.
dna.fa      12 DNA sequences of about 400 bases evolved the same way (transitions twice as likely as transversions).
Deterministic (fixed seed): the same files on every run.

    python3 apps/data/msa/make_msa_examples.py apps/data/msa
"""
import os
import random
import sys

AMINO = "ACDEFGHIKLMNPQRSTVWY"
# UniProtKB/Swiss-Prot amino-acid composition (percent), in AMINO's order.
FREQ = [8.25, 1.38, 5.46, 6.72, 3.86, 7.07, 2.27, 5.91, 5.80, 9.65, 2.41, 4.06, 4.74, 3.93, 5.53, 6.64, 5.35,
        6.86, 1.10, 2.92]
GROUPS = ["STA", "NEQKDHR", "MILV", "FYW", "GP", "C"]
TRANSITION = {"A": "G", "G": "A", "C": "T", "T": "C"}


def protein_substitute(rng, c):
    if rng.random() < 0.6:
        group = next(g for g in GROUPS if c in g)
        if len(group) > 1:
            return rng.choice([x for x in group if x != c])
    return rng.choices(AMINO, FREQ)[0]


def dna_substitute(rng, c):
    if rng.random() < 2 / 3:
        return TRANSITION[c]
    return rng.choice([x for x in "ACGT" if x != c and x != TRANSITION[c]])


def evolve(rng, seq, rate, indel, substitute, draw):
    out = []
    for c in seq:
        r = rng.random()
        if r < indel / 2:
            continue  # a deletion of this residue (runs come from neighbours deleted in turn)
        out.append(substitute(rng, c) if rng.random() < rate else c)
        if r > 1 - indel / 2:
            out.extend(draw() for _ in range(rng.randint(1, 4)))
    return "".join(out)


def family(rng, count, length, rate, indel, substitute, draw, prefix):
    """count sequences down a random binary tree (each split a new pair of branches of random length)."""
    leaves = [draw_sequence(draw, length)]
    while len(leaves) < count:
        k = rng.randrange(len(leaves))
        parent = leaves.pop(k)
        for _ in range(2):
            leaves.append(evolve(rng, parent, rate * rng.uniform(0.3, 1.5), indel, substitute, draw))
    return [(f"{prefix}{i + 1:02d}", s) for i, s in enumerate(leaves)]


def draw_sequence(draw, length):
    return "".join(draw() for _ in range(length))


def write(path, records):
    with open(path, "w") as f:
        for name, seq in records:
            f.write(f">{name}\n")
            for k in range(0, len(seq), 60):
                f.write(seq[k:k + 60] + "\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    rng = random.Random(2026)
    amino = lambda: rng.choices(AMINO, FREQ)[0]  # noqa: E731
    base = lambda: rng.choice("ACGT")  # noqa: E731
    write(os.path.join(out, "family.fa"), family(rng, 24, 150, 0.12, 0.02, protein_substitute, amino, "prot"))
    write(os.path.join(out, "dna.fa"), family(rng, 12, 400, 0.06, 0.01, dna_substitute, base, "dna"))


if __name__ == "__main__":
    main()
