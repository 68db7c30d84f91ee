#!/usr/bin/env python3
"""Input sets for the progressive-stage oracle test, stage3_vs_clustalw.py (python3, standard library only; the same
arguments always give the same files).

Usage: make_stage3_data.py HMMER_TUTORIAL_DIR LAMBDA_FA_GZ OUT_DIR

Writes OUT_DIR/NAME.fa for:
  globins4, fn3, pkinase   the sequences of hmmer-examples' Stockholm alignments, gaps removed
  globins45                hmmer-examples' globins45.fa as it is
  lambda_close             a 300-base piece of the lambda phage genome and 7 copies with 4 % substitutions and
                           small indels
  lambda_long              a 1200-base piece and 13 copies at 8 % substitutions and 3 % indels, some copied from
                           the previous copy
  lambda_far               5 copies of a 240-base piece at 25 % substitutions, plus one unrelated piece (delayed
                           by MAXDIV)
  two                      two globins
  identical                three identical globins and one other
  ambiguous                globins with X in places; ambiguous_dna: DNA with N
  lower_case               lower-case protein letters
  long_names               names past the 30-character name width, with words after them in the header
  gapped_input             globins with '-' in them (gaps ClustalW keeps as input gaps)
  mixed_case_dna           short DNA in upper and lower case
  random_0 .. random_11    2 to 14 random sequences (DNA for every third set) descended from a random root by
                           substitutions and indels at random rates
  close_pairs              each globin with a copy at 10 % substitutions and small indels (two-sequence profiles
                           above 60 % identity, where -NOVGAP's variable-zone penalties apply)
"""
import random
import sys

from msa_files import read_genome, stockholm_unaligned as read_stockholm, write_fasta as write


def mutate(rng, seq, substitution, indel):
    out = []
    i = 0
    while i < len(seq):
        r = rng.random()
        if r < indel / 2:
            i += rng.randint(1, 3)  # deletion
            continue
        if r < indel:
            out.append("".join(rng.choice("ACGT") for _ in range(rng.randint(1, 3))))  # insertion
        c = seq[i]
        if rng.random() < substitution:
            c = rng.choice([b for b in "ACGT" if b != c])
        out.append(c)
        i += 1
    return "".join(out)


def mutate_protein(rng, seq):
    letters = "ACDEFGHIKLMNPQRSTVWY"
    out = []
    i = 0
    while i < len(seq):
        r = rng.random()
        if r < 0.02:
            i += rng.randint(1, 3)
            continue
        if r < 0.04:
            out.append("".join(rng.choice(letters) for _ in range(rng.randint(1, 3))))
        out.append(rng.choice(letters) if rng.random() < 0.1 else seq[i])
        i += 1
    return "".join(out)


def random_family(rng, dna):
    letters = "ACGT" if dna else "ACDEFGHIKLMNPQRSTVWY"

    def descend(seq, substitution, indel):
        out = []
        i = 0
        while i < len(seq):
            r = rng.random()
            if r < indel / 2:
                i += rng.randint(1, 4)
                continue
            if r < indel:
                out.append("".join(rng.choice(letters) for _ in range(rng.randint(1, 4))))
            out.append(rng.choice(letters) if rng.random() < substitution else seq[i])
            i += 1
        return "".join(out) or rng.choice(letters)

    family = ["".join(rng.choice(letters) for _ in range(rng.randint(5, 160)))]
    for _ in range(rng.randint(1, 13)):
        family.append(descend(rng.choice(family), rng.choice([0.02, 0.1, 0.3, 0.6]), rng.choice([0, 0.02, 0.08])))
    return family


def main():
    tutorial, lambda_path, out = sys.argv[1:4]
    globins = read_stockholm(f"{tutorial}/globins4.sto")
    write(f"{out}/globins4.fa", globins)
    write(f"{out}/fn3.fa", read_stockholm(f"{tutorial}/fn3.sto"))
    write(f"{out}/pkinase.fa", read_stockholm(f"{tutorial}/Pkinase.sto"))
    with open(f"{tutorial}/globins45.fa") as f, open(f"{out}/globins45.fa", "w") as g:
        g.write(f.read())

    rng = random.Random(50)
    genome = read_genome(lambda_path)
    close = genome[1000:1300]
    write(f"{out}/lambda_close.fa",
          [("lambda_0", close)] + [(f"lambda_{k}", mutate(rng, close, 0.04, 0.02)) for k in range(1, 8)])
    long_piece = genome[30000:31200]
    copies, previous = [("long_0", long_piece)], long_piece
    for k in range(1, 14):
        copies.append((f"long_{k}", mutate(rng, long_piece if k % 2 else previous, 0.08, 0.03)))
        previous = copies[-1][1]
    write(f"{out}/lambda_long.fa", copies)
    far = genome[20000:20240]
    unrelated = genome[40000:40240]
    write(f"{out}/lambda_far.fa",
          [(f"far_{k}", mutate(rng, far, 0.25, 0.03)) for k in range(5)] + [("unrelated", unrelated)])

    write(f"{out}/two.fa", globins[:2])
    write(f"{out}/identical.fa", [("copy_a", globins[0][1]), ("copy_b", globins[0][1]), ("other", globins[2][1]),
                                  ("copy_c", globins[0][1])])
    with_x = [(name, seq[:10] + "X" + seq[11:40] + "XX" + seq[42:]) for name, seq in globins]
    write(f"{out}/ambiguous.fa", with_x)
    with_n = [("n_0", close[:150]), ("n_1", close[:40] + "NNN" + close[43:150]),
              ("n_2", mutate(rng, close[:150], 0.05, 0.02)), ("n_3", "N" + close[1:150])]
    write(f"{out}/ambiguous_dna.fa", with_n)
    write(f"{out}/lower_case.fa", [(name, seq.lower()) for name, seq in globins[1:]])
    write(f"{out}/long_names.fa",
          [(f"{name}_with_a_very_long_suffix_{k} and words", seq) for k, (name, seq) in enumerate(globins)])
    write(f"{out}/gapped_input.fa", [(name, seq[:20] + "---" + seq[20:50] + "-" + seq[50:]) for name, seq in globins])
    write(f"{out}/mixed_case_dna.fa", [("a", "acgtACGTTTGACCAnnGT"), ("b", "ACGTACCTTTGACCATGT"),
                                       ("c", "acgtacgtttgaccgtgtA" + close[:30].lower())])
    pairs = []
    for name, seq in globins:
        pairs += [(name, seq), (name + "_m", mutate_protein(rng, seq))]
    write(f"{out}/close_pairs.fa", pairs)
    family_rng = random.Random(51)
    for k in range(12):
        family = random_family(family_rng, k % 3 == 0)
        write(f"{out}/random_{k}.fa", [(f"r{k}_{i}", seq) for i, seq in enumerate(family)])


if __name__ == "__main__":
    main()
