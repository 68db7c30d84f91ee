#!/usr/bin/env python3
"""cudp-phylo's log-likelihoods against IQ-TREE 2 and PhyML with every parameter fixed (docs/phylo.md).

usage: phylo_vs_references.py CUDP_PHYLO [--iqtree IQTREE2] [--phyml PHYML] [--mrbayes-examples DIR]

Data: alignments simulated along random trees with make_phylo_data.py (gaps and IUPAC codes included, DNA,
protein and codons, FASTA and PHYLIP), MrBayes' primates.nex with a fixed tree, its avian_ovomucoids.nex (protein,
89 taxa, no C or W) on a fixed balanced tree, and its replicase.nex (RNA, read as codons). For each (data, model)
the programs evaluate the same tree with the same parameters:
- IQ-TREE (-te TREE -blfix, every parameter in braces) prints 4 decimals: ours must round to within 1e-4 of it;
- PhyML (-o n) prints the log-likelihood to 20 digits: ours must agree to 1e-9 relative (double precision), or
  1e-8 for LG, WAG and JTT with their own frequencies (PhyML's tables of those differ from IQ-TREE's, which ours
  follow, in the eighth digit).
IQ-TREE 2.0.7 takes no fixed omega and kappa for GY, so for codon models it fits them (with -me 1e-6, so that the
log-likelihood it records belongs to the values it records) and ours evaluates at the values from its checkpoint,
against the log-likelihood there (8 decimals), to 1e-5 (8e-7 measured). PhyML has no codon models.
Single precision is checked against our double to SINGLE_NATS, absolute: float's error here is 6.4e-4 at most
(most cases 1e-4), and a bound relative to the log-likelihood (1e-5 of 3e4 is 0.3) would hide a rescale off by one
power of two, which costs ln 2 = 0.69. Exits non-zero if any case disagrees; prints a line per case.
"""
import argparse
import gzip
import os
import random
import re
import subprocess
import sys
import tempfile

SINGLE_NATS = 1e-2
HERE = os.path.dirname(os.path.abspath(__file__))
PRIMATES_TREE = ("(((((Homo_sapiens:0.05,Pan:0.06):0.02,Gorilla:0.07):0.03,Pongo:0.1):0.04,Hylobates:0.12):0.05,"
                 "((Macaca_fuscata:0.02,M_mulatta:0.03):0.01,(M_fascicularis:0.04,M_sylvanus:0.06):0.02):0.08,"
                 "(Saimiri_sciureus:0.2,(Tarsius_syrichta:0.3,Lemur_catta:0.25):0.05):0.06);")
# IQ-TREE's tree for replicase.nex under GY+F (its branch lengths, rounded).
REPLICASE_TREE = ("(FR:0.5526,MS2:0.2179,(GA:1.8283,(((SP:0.3577,NL95:0.4630):0.6324,((M11:0.2135,MX1:0.3521):0.6377,"
                  "QB:0.4672):0.4787):2.0801,PP7:3.6512):2.0378):0.8279);")


def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                                                                               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
    if p.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return p.stdout


def cudp(tool, alignment, tree, model, precision="double"):
    out = run([tool, "evaluate", "--alignment", alignment, "--tree", tree, "--model", model, "--backend", "host",
               "--precision", precision])
    return float(re.search(r"^log-likelihood: (\S+)", out, re.M).group(1))


def iqtree_codon(binary, alignment, tree, model, work):
    """IQ-TREE's fit of GY's omega and kappa on a fixed tree: (omega, kappa, log-likelihood), from its checkpoint."""
    prefix = os.path.join(work, "iqc")
    run([binary, "-s", alignment, "-st", "CODON", "-te", tree, "-m", model, "-blfix", "-me", "0.000001", "-redo",
         "-nt", "1", "-pre", prefix, "-quiet"])
    with gzip.open(prefix + ".ckp.gz", "rt") as f:
        text = f.read()
    omega = re.search(r"^ omega: (\S+)", text, re.M).group(1)
    kappa = re.search(r"^ kappa: (\S+)", text, re.M).group(1)
    lnl = float(re.search(r"^CandidateSet:\n +0: (\S+)", text, re.M).group(1))
    return omega, kappa, lnl


def read_nexus_matrix(path):
    """Names and rows of a simple NEXUS matrix (one line per taxon), with matchchar '.' resolved against the first
    row: IQ-TREE 2.0.7 reads neither these files' FORMAT lines nor matchchar, and PhyML wants PHYLIP."""
    names, rows, in_matrix = [], [], False
    for line in open(path):
        if line.strip().lower() == "matrix":
            in_matrix = True
        elif in_matrix and line.strip() == ";":
            in_matrix = False
        elif in_matrix and line.split() and not line.strip().startswith("["):
            names.append(line.split()[0])
            rows.append("".join(line.split()[1:]))
    rows = [r if i == 0 else "".join(f if c == "." else c for c, f in zip(r, rows[0])) for i, r in enumerate(rows)]
    return names, rows


def write_alignment(names, rows, fasta, phylip=None):
    with open(fasta, "w") as out:
        for n, r in zip(names, rows):
            out.write(f">{n}\n{r}\n")
    if phylip:
        with open(phylip, "w") as out:
            out.write(f"{len(names)} {len(rows[0])}\n")
            for n, r in zip(names, rows):
                out.write(f"{n}  {r}\n")


def primates_files(examples, work):
    """MrBayes' primates.nex and, in `work`, its matrix as FASTA and PHYLIP (IQ-TREE 2.0.7 cannot read the file's
    FORMAT line) and PRIMATES_TREE: (nexus, fasta, phylip, tree) paths."""
    nexus = os.path.join(examples, "primates.nex")
    fasta, phylip, tree = (os.path.join(work, "primates" + ext) for ext in (".fa", ".phy", ".nwk"))
    with open(tree, "w") as t:
        t.write(PRIMATES_TREE + "\n")
    write_alignment(*read_nexus_matrix(nexus), fasta, phylip)
    return nexus, fasta, phylip, tree


def balanced_tree(names, seed):
    """An unrooted tree over the taxa in file order (neighbours in the file are usually relatives), lengths
    0.01-0.1."""
    rng = random.Random(seed)

    def join(tips):
        if len(tips) == 1:
            return tips[0]
        half = len(tips) // 2
        return f"({join(tips[:half])}:{rng.uniform(0.01, 0.1):.4f},{join(tips[half:])}:{rng.uniform(0.01, 0.1):.4f})"

    third = len(names) // 3
    parts = [names[:third], names[third:2 * third], names[2 * third:]]
    return "(" + ",".join(f"{join(p)}:{rng.uniform(0.01, 0.1):.4f}" for p in parts) + ");"


def iqtree(binary, alignment, tree, model, work):
    prefix = os.path.join(work, "iq")
    run([binary, "-s", alignment, "-te", tree, "-m", model, "-blfix", "-redo", "-nt", "1", "-pre", prefix, "-quiet"])
    text = open(prefix + ".iqtree").read()
    return float(re.search(r"Log-likelihood of the tree: (\S+)", text).group(1))


def phyml_full(binary, phylip, tree, args, work):
    local = os.path.join(work, "aln.phy")
    with open(phylip) as src, open(local, "w") as dst:
        dst.write(src.read())
    out = run([binary, "-i", local, "-u", tree, "-o", "n", "-b", "0", "--no_memory_check"] + args)
    return float(re.search(r"Log likelihood of the current tree: (-?[0-9.]+[0-9])", out).group(1))


def simulate(work, name, seed, taxa, sites, states=4, fmt="fasta", **extra):
    prefix = os.path.join(work, name)
    cmd = [sys.executable, os.path.join(HERE, "make_phylo_data.py"), prefix, "--seed", str(seed), "--taxa", str(taxa),
           "--sites", str(sites), "--states", str(states), "--format", fmt]
    for k, v in extra.items():
        cmd += ["--" + k.replace("_", "-")] + ([] if v is True else [str(v)])
    out = run(cmd)
    rates = re.search(r"^(?:rates|gy94) (\S+)", out, re.M).group(1)
    freqs = re.search(r"^freqs (\S+)", out, re.M).group(1)
    return prefix + (".fa" if fmt == "fasta" else ".phy"), prefix + ".nwk", rates, freqs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cudp_phylo")
    ap.add_argument("--iqtree")
    ap.add_argument("--phyml")
    ap.add_argument("--mrbayes-examples")
    args = ap.parse_args()
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as work:
        fasta_of = {}  # what IQ-TREE reads instead of a NEXUS file it cannot
        cases = []  # (name, alignment, tree, our model, iqtree model or None, phyml args or None)
        aln, tree, rates, freqs = simulate(work, "dna1", 1, 24, 1500, ambiguity=0.02, gaps=0.03)
        f = "{" + freqs + "}"
        for model in [f"JC", f"JC+G4{{0.5}}", f"F81+F{f}+I{{0.2}}", f"K80{{3.1}}+G4{{1.3}}+I{{0.1}}",
                      f"HKY{{2.4}}+F{f}+G4{{0.8}}", f"TN93{{2.2,4.5}}+F{f}+G6{{0.4}}",
                      f"SYM{{{rates}}}+G4{{0.9}}", f"GTR{{{rates}}}+F{f}+G4{{0.7}}+I{{0.15}}",
                      f"GTR{{{rates}}}+F{f}+G8{{0.2}}"]:
            cases.append(("simulated DNA, 24 taxa", aln, tree, model, model, None))
        # Frequencies counted from data with 5% ambiguity codes: IQ-TREE shares an ambiguous count among its states.
        aln, tree, _, _ = simulate(work, "dna3", 4, 24, 1500, ambiguity=0.05, gaps=0.03)
        cases.append(("simulated DNA, 5% ambiguity codes", aln, tree, "HKY{2}+F+G4{0.7}", "HKY{2}+F+G4{0.7}", None))
        aln, tree, rates, freqs = simulate(work, "dna2", 2, 60, 800, fmt="phylip", mean_length=0.3, rooted=True)
        f = "{" + freqs + "}"
        ff = freqs
        cases.append(("simulated DNA, 60 taxa, rooted", aln, tree, f"GTR{{{rates}}}+F{f}+G4{{0.6}}+I{{0.1}}",
                      f"GTR{{{rates}}}+F{f}+G4{{0.6}}+I{{0.1}}", None))
        cases.append(("simulated DNA, 60 taxa, rooted", aln, tree, f"HKY{{3.0}}+F{f}+G4{{0.6}}+I{{0.1}}",
                      f"HKY{{3.0}}+F{f}+G4{{0.6}}+I{{0.1}}",
                      ["-d", "nt", "-m", "HKY85", "-t", "3.0", "-f", ff, "-c", "4", "-a", "0.6", "-v", "0.1"]))
        cases.append(("simulated DNA, 60 taxa, rooted", aln, tree, "K80{2.5}+G4{1.1}", "K80{2.5}+G4{1.1}",
                      ["-d", "nt", "-m", "K80", "-t", "2.5", "-c", "4", "-a", "1.1", "-v", "0"]))
        cases.append(("simulated DNA, 60 taxa, rooted", aln, tree, "JC", "JC",
                      ["-d", "nt", "-m", "JC69", "-c", "1", "-v", "0"]))
        aln, tree, _, _ = simulate(work, "prot", 3, 16, 400, states=20, ambiguity=0.02, gaps=0.05)
        cases.append(("simulated protein, 16 taxa", aln, tree, "Poisson+G4{0.8}+I{0.05}", "Poisson+G4{0.8}+I{0.05}",
                      None))
        # PhyML reads B as N and Z as Q, so its comparisons use data with X as the only ambiguity code.
        for model in ["LG+G4{0.8}+I{0.05}", "WAG+F+G4{0.6}", "JTT+FQ+I{0.1}", "LG+F"]:
            cases.append(("simulated protein, 16 taxa, B Z X", aln, tree, model, model, None))
        aln, tree, _, _ = simulate(work, "prot2", 6, 20, 500, states=20, fmt="phylip", ambiguity=0.02, gaps=0.03,
                                   ambiguity_letters="X", padded_names=True)
        loose = 1e-8  # PhyML's LG, WAG, JTT frequencies against IQ-TREE's (see above)
        for model, phyml_model, tol in [
                ("LG+G4{0.7}+I{0.1}", "-m LG -c 4 -a 0.7 -v 0.1 -f m", loose),
                ("WAG+F+G4{0.9}", "-m WAG -c 4 -a 0.9 -v 0 -f e", 1e-9),
                ("JTT+F+I{0.15}", "-m JTT -c 1 -v 0.15 -f e", 1e-9),
                ("JTT+G4{1.4}", "-m JTT -c 4 -a 1.4 -v 0 -f m", loose)]:
            cases.append(("simulated protein, 20 taxa, X", aln, tree, model, model, ["-d", "aa"] + phyml_model.split(),
                          tol))
        if args.mrbayes_examples:
            nexus, fasta, phylip, primates_tree = primates_files(args.mrbayes_examples, work)
            model = "HKY{4.0}+F{0.1,0.2,0.3,0.4}+G4{0.5}+I{0.2}"
            cases.append(("MrBayes primates.nex", nexus, primates_tree, model, None,
                          ["-d", "nt", "-m", "HKY85", "-t", "4.0", "-f", "0.1,0.2,0.3,0.4", "-c", "4", "-a", "0.5",
                           "-v", "0.2"]))
            cases.append(("MrBayes primates.nex (as FASTA for IQ-TREE)", fasta, primates_tree,
                          "GTR{1,2,3,4,5}+F{0.1,0.2,0.3,0.4}+G4{0.5}", "GTR{1,2,3,4,5}+F{0.1,0.2,0.3,0.4}+G4{0.5}",
                          None))
            phylip_of = {nexus: phylip}

            # A real protein alignment in which C and W never occur: +F must give them (almost) nothing, as IQ-TREE
            # 2 does. PhyML keeps more for them, so it is compared with the models' own frequencies only.
            avian = os.path.join(args.mrbayes_examples, "avian_ovomucoids.nex")
            names, rows = read_nexus_matrix(avian)
            avian_fasta, avian_phylip = os.path.join(work, "avian.fa"), os.path.join(work, "avian.phy")
            write_alignment(names, rows, avian_fasta, avian_phylip)
            avian_tree = os.path.join(work, "avian.nwk")
            with open(avian_tree, "w") as t:
                t.write(balanced_tree(names, 7) + "\n")
            phylip_of[avian] = avian_phylip
            fasta_of[avian] = avian_fasta
            for model, phyml_model in [("LG+G4{0.6}+I{0.1}", "-m LG -c 4 -a 0.6 -v 0.1"),
                                       ("WAG+G4{0.7}", "-m WAG -c 4 -a 0.7 -v 0"), ("JTT", "-m JTT -c 1 -v 0")]:
                cases.append(("MrBayes avian_ovomucoids.nex", avian, avian_tree, model, model,
                              ["-d", "aa", "-f", "m"] + phyml_model.split(), 1e-8))
            for model in ["LG+F+G4{0.6}", "JTT+F+I{0.2}"]:
                cases.append(("MrBayes avian_ovomucoids.nex", avian, avian_tree, model, model, None))
        else:
            phylip_of = {}

        # Codons: GY94 with IQ-TREE's fitted omega and kappa (see above). The simulated data have whole-codon gaps and
        # codons with one ambiguous position, which both programs read as unknown.
        codon_cases = []
        aln, tree, _, _ = simulate(work, "codon", 5, 20, 300, states=61, fmt="phylip", ambiguity=0.02, gaps=0.03,
                                   padded_names=True)
        for model in ["GY", "GY+F3X4", "GY+F1X4", "GY+G4{0.7}", "GY+FQ+I{0.1}"]:
            codon_cases.append(("simulated codons, 20 taxa", aln, tree, model))
        if args.mrbayes_examples:
            names, rows = read_nexus_matrix(os.path.join(args.mrbayes_examples, "replicase.nex"))
            replicase = os.path.join(args.mrbayes_examples, "replicase.nex")
            fasta_of[replicase] = os.path.join(work, "replicase.fa")
            write_alignment(names, rows, fasta_of[replicase])
            replicase_tree = os.path.join(work, "replicase.nwk")
            with open(replicase_tree, "w") as t:
                t.write(REPLICASE_TREE + "\n")
            for model in ["GY", "GY+F3X4+G4{0.5}"]:
                codon_cases.append(("MrBayes replicase.nex", replicase, replicase_tree, model))
        for name, aln, tree, model in codon_cases if args.iqtree else []:
            omega, kappa, ref = iqtree_codon(args.iqtree, fasta_of.get(aln, aln), tree, model, work)
            ours_model = f"GY{{{omega},{kappa}}}" + model[2:]
            ours = cudp(args.cudp_phylo, aln, tree, ours_model)
            single = cudp(args.cudp_phylo, aln, tree, ours_model, "single")
            ok_iq = abs(ours - ref) <= 1e-5
            ok = ok_iq and abs(single - ours) <= SINGLE_NATS
            line = (f"{name}, {ours_model}: cudp {ours:.10f}, single - double {single - ours:+.1e}, "
                    f"IQ-TREE {ref:.8f} (fitted)" + ("" if ok_iq else " DIFFERENT"))
            checked += 1
            print(("ok   " if ok else "FAIL ") + line, flush=True)
            failures += not ok

        for name, aln, tree, model, iq_model, phyml_args, *tolerance in cases:
            ours = cudp(args.cudp_phylo, aln, tree, model)
            single = cudp(args.cudp_phylo, aln, tree, model, "single")
            line = f"{name}, {model}: cudp {ours:.10f}"
            ok = abs(single - ours) <= SINGLE_NATS
            line += f", single - double {single - ours:+.1e}"
            if iq_model and args.iqtree:
                ref = iqtree(args.iqtree, fasta_of.get(aln, aln), tree, iq_model, work)
                ok_iq = abs(ours - ref) <= 1e-4
                ok = ok and ok_iq
                line += f", IQ-TREE {ref:.4f}" + ("" if ok_iq else " DIFFERENT")
                checked += 1
            if phyml_args and args.phyml:
                phylip = phylip_of.get(aln, aln)
                if not phylip.endswith(".phy"):
                    sys.exit(f"{name}: PhyML needs PHYLIP")
                ref = phyml_full(args.phyml, phylip, tree, phyml_args, work)
                ok_phyml = abs(ours - ref) <= (tolerance[0] if tolerance else 1e-9) * abs(ref)
                ok = ok and ok_phyml
                relative = abs(ours - ref) / abs(ref)
                line += f", PhyML {ref:.10f} (relative {relative:.1e})" + ("" if ok_phyml else " DIFFERENT")
                checked += 1
            print(("ok   " if ok else "FAIL ") + line, flush=True)
            failures += not ok
    if checked == 0:
        sys.exit("no reference tool was given: nothing was compared")
    if failures:
        sys.exit(f"{failures} case(s) disagree")
    print(f"all {len(cases) + len(codon_cases)} cases agree ({checked} comparisons)")


if __name__ == "__main__":
    main()
