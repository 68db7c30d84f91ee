#!/usr/bin/env python3
"""Deterministic mutated copies of a DNA sequence (python3, standard library only), for the full-alignment oracle
tests: the same seed always gives the same FASTA.

A copy carries, in this order (positions drawn from the seed, mutations listed in the FASTA header):
  a tandem duplication  a segment of DUP residues repeated right after itself (a duplicated repeat)
  an inversion          a segment of INV residues replaced by its reverse complement
  long indels           LONG deletions and LONG insertions of 50-500 residues
  small indels          each position starts a 1-5 residue deletion or insertion with probability INDEL
  SNPs                  each position is substituted with probability SNP

Usage:
  mutate_dna.py SEED IN.fa[.gz] OUT.fa [--name NAME] [--snp P] [--indel P] [--long N] [--inversion LEN]
                [--duplication LEN] [--copies K]
K copies (default 1) use seeds SEED, SEED+1, ...; named NAME_1..NAME_K (NAME defaults to "mutant").
Only the first record of IN is read; letters other than ACGT are kept as they are.
"""
import argparse
import gzip
import random

BASES = "ACGT"
COMPLEMENT = str.maketrans("ACGTRYKMBVDHNacgtrykmbvdhn", "TGCAYRMKVBHDNtgcayrmkvbhdn")


def read_first(path):
    opener = gzip.open if path.endswith(".gz") else open
    seq, seen = [], 0
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith(">"):
                seen += 1
                if seen > 1:
                    break
                continue
            if seen:
                seq.append(line.strip().upper())
    if not seen:
        raise SystemExit(f"mutate_dna.py: no FASTA record in {path}")
    return "".join(seq)


def random_dna(rng, n):
    return "".join(rng.choice(BASES) for _ in range(n))


def mutate(seq, rng, snp=0.01, indel=0.002, long_indels=2, inversion=1000, duplication=300):
    """Returns (mutated sequence, list of mutation descriptions)."""
    log = []
    s = seq
    if duplication and len(s) > 2 * duplication:
        p = rng.randrange(0, len(s) - duplication)
        s = s[: p + duplication] + s[p : p + duplication] + s[p + duplication :]
        log.append(f"dup{p + 1}-{p + duplication}")
    if inversion and len(s) > 2 * inversion:
        p = rng.randrange(0, len(s) - inversion)
        s = s[:p] + s[p : p + inversion].translate(COMPLEMENT)[::-1] + s[p + inversion :]
        log.append(f"inv{p + 1}-{p + inversion}")
    for k in range(long_indels):
        for kind in ("del", "ins"):
            n = rng.randint(50, 500)
            if len(s) <= 2 * n:
                continue
            p = rng.randrange(0, len(s) - n)
            s = s[:p] + s[p + n :] if kind == "del" else s[:p] + random_dna(rng, n) + s[p:]
            log.append(f"{kind}{p + 1}:{n}")
    out = []
    small = snps = 0
    i = 0
    while i < len(s):
        r = rng.random()
        if r < indel / 2:
            i += rng.randint(1, 5)  # small deletion
            small += 1
            continue
        if r < indel:
            out.append(random_dna(rng, rng.randint(1, 5)))  # small insertion
            small += 1
        c = s[i]
        if rng.random() < snp and c in BASES:
            c = rng.choice(BASES.replace(c, ""))
            snps += 1
        out.append(c)
        i += 1
    log.append(f"{snps}snps")
    log.append(f"{small}small_indels")
    return "".join(out), log


def write_fasta(f, name, seq, desc=""):
    f.write(f">{name}{' ' + desc if desc else ''}\n")
    for k in range(0, len(seq), 70):
        f.write(seq[k : k + 70] + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("seed", type=int)
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--name", default="mutant")
    ap.add_argument("--snp", type=float, default=0.01)
    ap.add_argument("--indel", type=float, default=0.002)
    ap.add_argument("--long", type=int, default=2, help="long deletions and as many long insertions")
    ap.add_argument("--inversion", type=int, default=1000)
    ap.add_argument("--duplication", type=int, default=300)
    ap.add_argument("--copies", type=int, default=1)
    a = ap.parse_args()
    seq = read_first(a.input)
    with open(a.output, "w") as f:
        for k in range(a.copies):
            rng = random.Random(a.seed + k)
            m, log = mutate(seq, rng, a.snp, a.indel, a.long, a.inversion, a.duplication)
            write_fasta(f, f"{a.name}_{k + 1}", m, f"seed={a.seed + k} len={len(m)} " + " ".join(log))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
