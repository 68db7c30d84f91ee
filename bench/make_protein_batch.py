#!/usr/bin/env python3
"""Writes a batch of protein pairs for cudp-align against parasail: QUERIES.fa holds COUNT random proteins of LOW to
HIGH residues, TARGETS.fa a mutated copy of each (10% substitutions, 2% single-residue insertions and deletions),
so that `--pairs all` aligns COUNT^2 pairs, COUNT of them related. Prints the cells of all pairs (sum of m x n), or
with `one-to-one` those of the COUNT related pairs alone; `dna` writes ACGT sequences instead. Deterministic for a
seed.

    python3 bench/make_protein_batch.py COUNT LOW HIGH SEED QUERIES.fa TARGETS.fa [protein|dna] [all|one-to-one]
"""
import random
import sys

AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"


def mutated(rng, seq, letters):
    out = []
    for residue in seq:
        roll = rng.random()
        if roll < 0.01:
            continue  # deleted
        if roll < 0.02:
            out.append(rng.choice(letters))  # an insertion before it
        out.append(rng.choice(letters) if roll < 0.12 else residue)
    return "".join(out)


def main():
    count, low, high, seed = (int(a) for a in sys.argv[1:5])
    letters = "ACGT" if sys.argv[7:8] == ["dna"] else AMINO_ACIDS
    rng = random.Random(seed)
    queries = ["".join(rng.choice(letters) for _ in range(rng.randint(low, high))) for _ in range(count)]
    targets = [mutated(rng, q, letters) for q in queries]
    for path, prefix, seqs in ((sys.argv[5], "q", queries), (sys.argv[6], "t", targets)):
        with open(path, "w") as f:
            for k, s in enumerate(seqs):
                f.write(">%s%d\n%s\n" % (prefix, k, s))
    if sys.argv[8:9] == ["one-to-one"]:
        print(sum(len(q) * len(t) for q, t in zip(queries, targets)))
    else:
        print(sum(len(q) for q in queries) * sum(len(t) for t in targets))


if __name__ == "__main__":
    main()
