#!/usr/bin/env python3
"""Input sets for the ClustalW oracle tests of cudp's msa module (python3, standard library only); the same
arguments always write the same files.

Usage: make_msa_data.py HMMER_EXAMPLES LAMBDA_FA[.gz] OUTDIR
Writes into OUTDIR, one FASTA per set:
  globins4, fn3, pkinase    the hmmer-examples tutorial Stockholm alignments with their gaps removed (protein)
  lambda_*                  pieces of the lambda phage genome with mutated copies (tests/oracle/mutate_dna.py):
                            SNPs, small and long indels, an inversion, a duplication; lambda_indels has many
                            small indels, so that the DNA gap costs decide many paths
  pair, identical, triple_identical, one_residue, odd_letters, dna_ambiguous, short_dna, input_gaps
                            corner cases: two sequences, identical sequences, 1-residue sequences, X/N, lower case,
                            characters ClustalW drops; input_gaps: sequences with '-' in them
  fn3_bzx                   fn3 with an eighth of its residues made B, Z or X: the rows of a matrix file that
                            ClustalW's reading shifts (tests/apps/msa_vs_clustalw.py, group matrices)
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
import mutate_dna  # noqa: E402
from msa_files import read_genome, stockholm_unaligned, write_fasta as write  # noqa: E402


def lambda_set(genome, rng, start, length, copies, **mutations):
    piece = genome[start : start + length]
    records = [(f"lambda_{start}", piece)]
    for k in range(copies):
        seq, _ = mutate_dna.mutate(piece, rng, **mutations)
        records.append((f"mut{k + 1}_{start}", seq))
    return records


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    hmmer, lambda_fa, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    tutorial = os.path.join(hmmer, "tutorial")
    write(os.path.join(out, "globins4.fa"), stockholm_unaligned(os.path.join(tutorial, "globins4.sto")))
    write(os.path.join(out, "fn3.fa"), stockholm_unaligned(os.path.join(tutorial, "fn3.sto"), 40))
    write(os.path.join(out, "pkinase.fa"), stockholm_unaligned(os.path.join(tutorial, "Pkinase.sto")))
    ambiguous = random.Random(5)
    write(os.path.join(out, "fn3_bzx.fa"),
          [(n, "".join(ambiguous.choice("BZX") if ambiguous.random() < 0.125 else c for c in seq))
           for n, seq in stockholm_unaligned(os.path.join(tutorial, "fn3.sto"), 40)])
    genome = read_genome(lambda_fa)
    rng = random.Random(50)
    small = dict(snp=0.05, indel=0.01, long_indels=0, inversion=0, duplication=0)
    write(os.path.join(out, "lambda_close.fa"), lambda_set(genome, rng, 1000, 400, 7, **small))
    far = dict(snp=0.25, indel=0.03, long_indels=1, inversion=100, duplication=60)
    write(os.path.join(out, "lambda_far.fa"), lambda_set(genome, rng, 20000, 700, 9, **far))
    indels = dict(snp=0.15, indel=0.06, long_indels=0, inversion=0, duplication=0)
    write(os.path.join(out, "lambda_indels.fa"), lambda_set(genome, rng, 10000, 1200, 15, **indels))
    mixed = lambda_set(genome, rng, 30000, 300, 4, **small) + lambda_set(genome, rng, 40000, 250, 4, **far)
    write(os.path.join(out, "lambda_mixed.fa"), mixed)
    globins = stockholm_unaligned(os.path.join(tutorial, "globins4.sto"))
    write(os.path.join(out, "pair.fa"), globins[:2])
    write(os.path.join(out, "identical.fa"), [("a", globins[0][1]), ("b", globins[0][1]), ("c", globins[1][1])])
    write(os.path.join(out, "triple_identical.fa"),
          [("a", globins[0][1]), ("b", globins[0][1]), ("c", globins[0][1]), ("d", globins[2][1])])
    write(os.path.join(out, "one_residue.fa"), [("w", "W"), ("k", "K"), ("long", globins[1][1]), ("w2", "W")])
    odd = [("lower", globins[0][1].lower()), ("xs", "XXXX" + globins[1][1][10:] + "XBZ"),
           ("drops", "1 " + globins[2][1][:60] + "*.J" + globins[2][1][60:] + "12"), ("u_o", "UOUO" + globins[3][1])]
    write(os.path.join(out, "odd_letters.fa"), odd)
    gapped = [(n, seq[:20] + "---" + seq[20:60] + "-" + seq[60:] + "--") for n, seq in globins]
    gapped.append(("all_gaps_end", globins[1][1][:50] + "-" * 30))
    write(os.path.join(out, "input_gaps.fa"), gapped)
    piece = genome[5000:5300]
    amb = [("plain", piece), ("with_n", piece[:100] + "NNNNN" + piece[105:]),
           ("lower", piece.lower()), ("iupac", piece[:50] + "RYKMSW" + piece[56:200])]
    write(os.path.join(out, "dna_ambiguous.fa"), amb)
    write(os.path.join(out, "short_dna.fa"), [("s1", "ACGT"), ("s2", "ACGA"), ("s3", "A"), ("s4", genome[9000:9040])])


if __name__ == "__main__":
    main()
