#!/usr/bin/env python3
"""Seeded test data for tree likelihoods: a random tree and an alignment simulated along it.

usage: make_phylo_data.py OUT_PREFIX --seed N --taxa T --sites S [--states 4|20|61] [--format fasta|phylip]
                          [--mean-length L] [--alpha A] [--pinv P] [--ambiguity F] [--gaps F] [--rooted]
                          [--ambiguity-letters L] [--padded-names]

Writes OUT_PREFIX.nwk and OUT_PREFIX.fa (or .phy), and prints the simulation's GTR rates and frequencies (for a
fixed-parameter --model string). Sequences evolve under GTR (random rates and frequencies) for DNA, Poisson for
protein, or GY94 for codons (61 states: random kappa and omega, printed as "gy94 OMEGA,KAPPA", and F3X4
frequencies; --sites counts codons), with gamma-distributed site rates and invariable sites; then a fraction of the
characters becomes IUPAC ambiguity codes and gaps, which the likelihood must treat as sets of states (for codons,
whole-codon gaps and codons with one ambiguous position, which IQ-TREE reads as unknown). --ambiguity-letters
picks the protein codes used (default BZX); --padded-names names the taxa t01, t02, ... so that no name is the
start of another (PhyML 3.3 mixes up the branch lengths of t1 and t15 otherwise).
"""
import argparse
import math
import random
import re

DNA = "ACGT"
PROTEIN = "ARNDCQEGHILKMFPSTWYV"
AMBIGUOUS_DNA = "RYSWKMBDHVN"
GENETIC_CODE = "KNKNTTTTRSRSIIMIQHQHPPPPRRRRLLLLEDEDAAAAGGGGVVVV*Y*YSSSS*CWCLFLF"  # universal, codons in ACGT order
SENSE_CODONS = [c for c in range(64) if GENETIC_CODE[c] != "*"]


def codon_letters(codon):
    return DNA[codon >> 4] + DNA[(codon >> 2) & 3] + DNA[codon & 3]


def gy94(kappa, omega, freqs):
    """The normalised GY94 rate matrix over the 61 sense codons (q_ij = s_ij pi_j)."""
    n = len(SENSE_CODONS)
    q = [[0.0] * n for _ in range(n)]
    for i, a in enumerate(SENSE_CODONS):
        for j, b in enumerate(SENSE_CODONS):
            diff = [(a >> s & 3, b >> s & 3) for s in (4, 2, 0) if (a >> s & 3) != (b >> s & 3)]
            if len(diff) != 1:
                continue
            rate = kappa if sum(diff[0]) in (2, 4) else 1.0  # A<->G, C<->T
            if GENETIC_CODE[a] != GENETIC_CODE[b]:
                rate *= omega
            q[i][j] = rate * freqs[j]
    for i in range(n):
        q[i][i] = -sum(q[i])
    mean = -sum(freqs[i] * q[i][i] for i in range(n))
    return [[v / mean for v in row] for row in q]


def random_tree(rng, taxa, mean_length, rooted):
    """Random topology by joining random pairs; returns Newick text with the tips t1..tT."""
    nodes = [f"t{i + 1}" for i in range(taxa)]
    lengths = lambda: max(1e-6, rng.expovariate(1 / mean_length))
    subtrees = [(name, lengths()) for name in nodes]
    stop = 1 if rooted else 3
    while len(subtrees) > stop:
        a, b = rng.sample(range(len(subtrees)), 2)
        left, right = subtrees[a], subtrees[b]
        for i in sorted((a, b), reverse=True):
            subtrees.pop(i)
        subtrees.append((("join", left, right), lengths()))
    return subtrees


def newick(node):
    shape, length = node
    if isinstance(shape, str):
        return f"{shape}:{length:.6f}"
    return f"({newick(shape[1])},{newick(shape[2])}):{length:.6f}"


def matrix_exponential(q, t):
    """exp(Q t) by scaling and squaring a Taylor series: plenty for simulation."""
    n = len(q)
    a = [[q[i][j] * t for j in range(n)] for i in range(n)]
    norm = max(sum(abs(v) for v in row) for row in a)
    squarings = max(0, int(math.ceil(math.log2(norm / 0.25))) if norm > 0.25 else 0)
    a = [[v / (2 ** squarings) for v in row] for row in a]
    result = [[float(i == j) for j in range(n)] for i in range(n)]
    term = [row[:] for row in result]
    for k in range(1, 14):
        term = [[sum(term[i][m] * a[m][j] for m in range(n)) / k for j in range(n)] for i in range(n)]
        result = [[result[i][j] + term[i][j] for j in range(n)] for i in range(n)]
    for _ in range(squarings):
        result = [[sum(result[i][m] * result[m][j] for m in range(n)) for j in range(n)] for i in range(n)]
    return result


def rate_matrix(rates, freqs):
    n = len(freqs)
    q = [[0.0] * n for _ in range(n)]
    k = 0
    for i in range(n):
        for j in range(i + 1, n):
            q[i][j] = rates[k] * freqs[j]
            q[j][i] = rates[k] * freqs[i]
            k += 1
    for i in range(n):
        q[i][i] = -sum(q[i][j] for j in range(n) if j != i)
    mean = -sum(freqs[i] * q[i][i] for i in range(n))
    return [[v / mean for v in row] for row in q]


def draw(rng, weights):
    x = rng.random() * sum(weights)
    for i, w in enumerate(weights):
        x -= w
        if x <= 0:
            return i
    return len(weights) - 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--taxa", type=int, required=True)
    ap.add_argument("--sites", type=int, required=True)
    ap.add_argument("--states", type=int, choices=(4, 20, 61), default=4)
    ap.add_argument("--format", choices=("fasta", "phylip"), default="fasta")
    ap.add_argument("--mean-length", type=float, default=0.1)
    ap.add_argument("--alpha", type=float, default=0.7)
    ap.add_argument("--pinv", type=float, default=0.1)
    ap.add_argument("--ambiguity", type=float, default=0.01)
    ap.add_argument("--gaps", type=float, default=0.02)
    ap.add_argument("--rooted", action="store_true")
    ap.add_argument("--ambiguity-letters", default="BZX")
    ap.add_argument("--padded-names", action="store_true")
    args = ap.parse_args()
    rng = random.Random(args.seed)

    letters = DNA if args.states == 4 else PROTEIN if args.states == 20 else [codon_letters(c) for c in SENSE_CODONS]
    n = len(letters)
    if n == 61:
        kappa, omega = round(rng.uniform(1.5, 4.0), 4), round(rng.uniform(0.1, 0.6), 4)
        positions = []
        for _ in range(3):
            raw = [rng.uniform(0.15, 0.35) for _ in range(4)]
            positions.append([f / sum(raw) for f in raw])
        freqs = [positions[0][c >> 4] * positions[1][(c >> 2) & 3] * positions[2][c & 3] for c in SENSE_CODONS]
        freqs = [f / sum(freqs) for f in freqs]
        q = gy94(kappa, omega, freqs)
    elif n == 4:
        rates = [round(rng.uniform(0.5, 5.0), 4) for _ in range(5)] + [1.0]
        raw = [rng.uniform(0.15, 0.35) for _ in range(4)]
        freqs = [round(f / sum(raw), 4) for f in raw]
        freqs[-1] = round(1 - sum(freqs[:-1]), 4)
    else:
        rates = [1.0] * (n * (n - 1) // 2)
        freqs = [1.0 / n] * n
    if n != 61:
        q = rate_matrix(rates, freqs)

    tree = random_tree(rng, args.taxa, args.mean_length, args.rooted)
    site_rates = [0.0 if rng.random() < args.pinv else rng.gammavariate(args.alpha, 1 / args.alpha)
                  for _ in range(args.sites)]
    cache = {}

    def jumps(state, time):
        """Walk a codon along a branch event by event: 61-state matrix exponentials are too slow in Python."""
        while True:
            time -= rng.expovariate(-q[state][state])
            if time < 0:
                return state
            state = draw(rng, [v if j != state else 0.0 for j, v in enumerate(q[state])])

    def evolve(parent, length):
        if n == 61:
            return [jumps(s, length * r) if r > 0 else s for s, r in zip(parent, site_rates)]
        out = []
        for s, r in zip(parent, site_rates):
            key = round(length * r, 5)
            if key not in cache:
                cache[key] = matrix_exponential(q, key)
            out.append(draw(rng, cache[key][s]))
        return out

    sequences = {}

    def walk(node, states):
        shape, length = node
        here = evolve(states, length)
        if isinstance(shape, str):
            sequences[shape] = here
        else:
            walk(shape[1], here)
            walk(shape[2], here)

    root = [draw(rng, freqs) for _ in range(args.sites)]
    for child in tree:
        walk(child, root)
    if len(tree) == 1:
        text = newick(tree[0]).rsplit(":", 1)[0] + ";"
    else:
        text = "(" + ",".join(newick(c) for c in tree) + ");"

    rows = {}
    for name in sorted(sequences, key=lambda s: int(s[1:])):
        chars = []
        for s in sequences[name]:
            x = rng.random()
            if x < args.gaps:
                chars.append("-" * len(letters[s]))
            elif x < args.gaps + args.ambiguity:
                if n == 4:
                    code = rng.choice(AMBIGUOUS_DNA)
                    chars.append(code)
                elif n == 20:
                    chars.append(rng.choice(args.ambiguity_letters))
                else:
                    codon, k = list(letters[s]), rng.randrange(3)
                    codon[k] = rng.choice(AMBIGUOUS_DNA + "-")
                    chars.append("".join(codon))
            else:
                chars.append(letters[s])
        rows[name] = "".join(chars)
    if args.padded_names:
        width = len(str(args.taxa))
        padded = {name: f"t{int(name[1:]):0{width}d}" for name in rows}
        rows = {padded[name]: row for name, row in rows.items()}
        text = re.sub(r"\bt(\d+)\b", lambda m: f"t{int(m.group(1)):0{width}d}", text)
    with open(args.prefix + ".nwk", "w") as f:
        f.write(text + "\n")
    if args.format == "fasta":
        with open(args.prefix + ".fa", "w") as f:
            for name, row in rows.items():
                f.write(f">{name}\n")
                for i in range(0, len(row), 60):
                    f.write(row[i:i + 60] + "\n")
    else:
        with open(args.prefix + ".phy", "w") as f:
            f.write(f"{len(rows)} {len(next(iter(rows.values())))}\n")
            for name, row in rows.items():
                f.write(f"{name}  {row}\n")
    if n == 61:
        print(f"gy94 {omega:g},{kappa:g}")
    else:
        print("rates " + ",".join(f"{r:g}" for r in rates[:5]))
    print("freqs " + ",".join(f"{x:g}" for x in freqs))


if __name__ == "__main__":
    main()
