#!/usr/bin/env python3
"""The pairs that the full-alignment oracle tests (align_vs_oracle.py) align, written deterministically (fixed
seeds, python3 standard library only) into OUT_DIR:

  SET.q.fa, SET.t.fa   one-to-one pairs: record k of SET.q.fa is aligned with record k of SET.t.fa. Consecutive
                       pairs that share a query are run as one oracle invocation.
  sets.tsv             one line per set: name, matrix, gap open, gap extend, alphabet, pairs, cells, description

Gap costs are cudp's (a gap of k residues costs OPEN + k*EXTEND). The sets:
  globins        hmmer-examples' globins45.fa, all 45 x 45 pairs (real proteins, 2025 pairs)
  globins_sample every 13th of those pairs (for the tools run once per pair)
  tutorial       the tutorial's single sequences (HBB_HUMAN, 7LESS_DROME, 2554 aa) and the ungapped members of its
                 Pkinase and fn3 alignments, paired with each other
  protein_gen    generated proteins: lengths 1 to 3000, related (mutated copies) and unrelated, and corner cases
  dna_gen        generated DNA, the same shapes, with poly-A, IUPAC codes and tandem repeats
  dna_real       fragments of the tutorial's human chromosome 1 piece (real repeats, poly-A runs) and of lambda
                 against their mutated copies (mutate_dna.py)
  lambda         the whole lambda phage genome (48502 bp) against two mutated copies (stretcher and scores only)

Usage: make_align_data.py OUT_DIR HMMER_EXAMPLES_DIR LAMBDA.fa[.gz]
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate_dna  # noqa: E402

AA = "ACDEFGHIKLMNPQRSTVWY"
NT = "ACGT"


def read_fasta(path):
    out, name, buf = [], None, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                if name is not None:
                    out.append((name, "".join(buf)))
                name, buf = line[1:].split()[0], []
            elif name is not None:
                buf.append(line.upper())
    if name is not None:
        out.append((name, "".join(buf)))
    return out


def read_swissprot(path):
    """The SQ section of a UniProt flat file."""
    seq, on = [], False
    with open(path) as f:
        for line in f:
            if line.startswith("SQ"):
                on = True
            elif line.startswith("//"):
                break
            elif on:
                seq.append("".join(line.split()).upper())
    return "".join(seq)


def read_stockholm(path):
    seqs = {}
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#") or line.startswith("//"):
                continue
            name, aln = line.split()
            seqs[name] = seqs.get(name, "") + aln
    return [(n.replace("/", "_"), "".join(c for c in s.upper() if c.isalpha())) for n, s in seqs.items()]


def mutate_protein(rng, q, sub=0.25, indel=0.03, flank=30):
    out = ["".join(rng.choice(AA) for _ in range(rng.randint(0, flank)))]
    i = 0
    while i < len(q):
        r = rng.random()
        if r < indel / 2:
            out.append("".join(rng.choice(AA) for _ in range(rng.randint(1, 8))))
        elif r < indel:
            i += rng.randint(1, 8)
            continue
        out.append(q[i] if rng.random() > sub else rng.choice(AA))
        i += 1
    out.append("".join(rng.choice(AA) for _ in range(rng.randint(0, flank))))
    s = "".join(out)
    return s if s else rng.choice(AA)


class Set:
    def __init__(self, name, matrix, gap_open, gap_extend, alphabet, description):
        self.name, self.matrix, self.open, self.extend = name, matrix, gap_open, gap_extend
        self.alphabet, self.description = alphabet, description
        self.pairs = []

    def add(self, qname, q, tname, t):
        assert q and t, (qname, tname)
        self.pairs.append((qname, q, tname, t))

    def write(self, out_dir, index):
        for suffix, k in ((".q.fa", 0), (".t.fa", 2)):
            with open(os.path.join(out_dir, self.name + suffix), "w") as f:
                for p in self.pairs:
                    mutate_dna.write_fasta(f, p[k], p[k + 1])
        cells = sum(len(p[1]) * len(p[3]) for p in self.pairs)
        index.write(f"{self.name}\t{self.matrix}\t{self.open}\t{self.extend}\t{self.alphabet}\t{len(self.pairs)}\t"
                    f"{cells}\t{self.description}\n")


def generated(name, matrix, gap_open, gap_extend, alphabet, seed):
    """Lengths from 1 to 3000, related and unrelated pairs, and corner cases."""
    rng = random.Random(seed)
    letters = AA if alphabet == "protein" else NT
    rand = lambda n: "".join(rng.choice(letters) for _ in range(n))  # noqa: E731
    if alphabet == "protein":
        related = lambda q: mutate_protein(rng, q)  # noqa: E731
    else:
        related = lambda q: mutate_dna.mutate(q, rng, snp=0.08, indel=0.03, long_indels=1 if len(q) > 1000 else 0,  # noqa: E731
                                              inversion=0, duplication=len(q) // 10 if len(q) > 200 else 0)[0] or "A"
    s = Set(name, matrix, gap_open, gap_extend, alphabet, f"generated {alphabet}, lengths 1-3000, seed {seed}")
    k = 0

    def add(q, t, what):
        nonlocal k
        k += 1
        s.add(f"{what}{k}_q{len(q)}", q, f"{what}{k}_t{len(t)}", t)

    # Lengths 1..3000 (roughly doubling), related and unrelated, and lopsided pairs.
    lengths = [1, 2, 3, 5, 8, 13, 21, 40, 75, 150, 300, 600, 1200, 2000, 3000]
    for n in lengths:
        q = rand(n)
        add(q, related(q), "rel")
        add(q, rand(max(1, int(n * rng.uniform(0.5, 1.5)))), "unrel")
    for m, n in ((1, 3000), (3000, 1), (2, 700), (700, 3), (50, 2500), (2500, 40)):
        q, t = rand(m), rand(n)
        add(q, t, "lopsided")
    big = rand(2500)
    add(big[600:900], big, "inside")  # a short query that lies inside the target (semi-global, local)
    add(big, big[1200:1500], "contains")
    # Length 1 against length 1, equal and different letters.
    a, b = letters[0], letters[1]
    add(a, a, "one")
    add(a, b, "one")
    # One repeated letter against the same letter (poly-A): every placement of the gap ties.
    for m, n in ((1, 7), (10, 10), (10, 25), (300, 301), (1000, 400)):
        add(a * m, a * n, "poly")
    # No similarity: letters that always score below zero against each other.
    if alphabet == "protein":
        add("W" * 40, "P" * 50, "nosim")
        add("".join(rng.choice("WC") for _ in range(120)), "".join(rng.choice("DEKP") for _ in range(90)), "nosim")
    else:
        add("A" * 40, "C" * 55, "nosim")
        add("".join(rng.choice("AC") for _ in range(150)), "".join(rng.choice("GT") for _ in range(130)), "nosim")
        # IUPAC codes scored by NUC.4.4: N against everything, two-base codes against bases.
        add("ACGTNNNNACGTRYKMSWBDHV" * 5, "ACGTACGTACGTACGTACGTAC" * 5, "iupac")
        add(rand(200).replace("A", "N", 7), rand(180).replace("C", "Y"), "iupac")
    # Ties: tandem repeats, where one copy more or less can be placed at any copy.
    unit = rand(6)
    add(unit * 20, unit * 17, "tandem")
    add(unit * 5 + rand(30) + unit * 5, unit * 7, "tandem")
    # One long gap in the middle, and gaps at both ends.
    q = rand(800)
    add(q, q[:300] + q[500:], "longgap")
    add(q, rand(150) + q + rand(150), "endgaps")
    add(q[100:700], q, "endgaps")
    return s


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    out_dir, hmmer, lambda_path = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    sets = []

    globins = read_fasta(os.path.join(hmmer, "tutorial", "globins45.fa"))
    g = Set("globins", "BLOSUM62", 11, 1, "protein", "globins45.fa all against all")
    for qn, q in globins:
        for tn, t in globins:
            g.add(qn, q, tn, t)
    sets.append(g)
    gs = Set("globins_sample", "BLOSUM62", 11, 1, "protein", "every 13th pair of globins")
    gs.pairs = g.pairs[::13]
    sets.append(gs)

    tut = os.path.join(hmmer, "tutorial")
    singles = [(n, read_fasta(os.path.join(tut, n))[0][1]) for n in ("HBB_HUMAN",)]
    singles.append(("7LESS_DROME", read_swissprot(os.path.join(tut, "7LESS_DROME"))))
    pk = read_stockholm(os.path.join(tut, "Pkinase.sto"))
    fn3 = read_stockholm(os.path.join(tut, "fn3.sto"))
    t = Set("tutorial", "BLOSUM50", 12, 2, "protein", "hmmer tutorial sequences: HBB_HUMAN, 7LESS_DROME, Pkinase, fn3")
    for i in range(0, min(len(pk), 24) - 1, 2):
        t.add(pk[i][0], pk[i][1], pk[i + 1][0], pk[i + 1][1])
    for i in range(0, min(len(fn3), 20) - 1, 2):
        t.add(fn3[i][0], fn3[i][1], fn3[i + 1][0], fn3[i + 1][1])
    lessq = singles[1][1]
    t.add("HBB_HUMAN", singles[0][1], "7LESS_DROME", lessq)
    t.add("fn3_" + fn3[0][0], fn3[0][1], "7LESS_DROME", lessq)
    t.add("Pkinase_" + pk[0][0], pk[0][1], "7LESS_DROME", lessq)
    t.add("7LESS_DROME", lessq, "7LESS_DROME_mut", mutate_protein(random.Random(5), lessq, sub=0.3))
    sets.append(t)

    sets.append(generated("protein_gen", "BLOSUM62", 10, 2, "protein", 11))
    sets.append(generated("dna_gen", "NUC.4.4", 10, 1, "dna", 12))

    lam = mutate_dna.read_first(lambda_path)
    human = read_fasta(os.path.join(tut, "dna_target.fa"))[0][1]
    d = Set("dna_real", "NUC.4.4", 5, 2, "dna", "fragments of lambda and of the hmmer tutorial's human DNA vs mutated copies")
    rng = random.Random(13)
    for src, label in ((lam, "lambda"), (human, "human")):
        for n in (200, 1000, 2500, 4000):
            p = rng.randrange(0, len(src) - n)
            frag = src[p : p + n]
            mut = mutate_dna.mutate(frag, rng, snp=0.03, indel=0.01, long_indels=1 if n >= 1000 else 0,
                                    inversion=n // 10, duplication=n // 20)[0]
            d.add(f"{label}_{p + 1}_{n}", frag, f"{label}_{p + 1}_{n}_mut", mut)
        p = rng.randrange(0, len(src) - 3000)
        d.add(f"{label}_{p + 1}_3000", src[p : p + 3000], f"{label}_{p + 1}_1500_shifted", src[p + 1000 : p + 2500])
    d.add("lambda_head_3000", lam[:3000], "human_head_3000", human[:3000])
    sets.append(d)

    lset = Set("lambda", "NUC.4.4", 10, 1, "dna", "lambda phage genome vs two mutated copies (mutate_dna.py)")
    heavy, log1 = mutate_dna.mutate(lam, random.Random(2024), snp=0.02, indel=0.002, long_indels=2,
                                    inversion=1000, duplication=300)
    light, log2 = mutate_dna.mutate(lam, random.Random(7), snp=0.002, indel=0.0002, long_indels=1,
                                    inversion=0, duplication=500)
    lset.add("lambda", lam, "lambda_heavy", heavy)
    lset.add("lambda", lam, "lambda_light", light)
    lset.description += f"; heavy: {' '.join(log1)}; light: {' '.join(log2)}"
    sets.append(lset)

    with open(os.path.join(out_dir, "sets.tsv"), "w") as index:
        for s in sets:
            s.write(out_dir, index)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
