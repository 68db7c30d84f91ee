#!/usr/bin/env python3
"""Seeded adversarial data for the oracle comparisons: targets of length 1 and 10^4 and 10^5, a query longer than
a block strip, and a query whose self-alignment scores over 32767 (16-bit overflow), plus mutated homologs."""
import os
import random
import sys

out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)
rng = random.Random(7)
AA = "ARNDCQEGHILKMFPSTWYV"
W = [7.6, 5.2, 4.3, 5.3, 1.4, 4.1, 6.4, 7.0, 2.2, 5.4, 9.4, 5.9, 2.3, 3.9, 4.9, 7.1, 5.6, 1.3, 3.2, 6.7]

def seq(n):
    return "".join(rng.choices(AA, W, k=n))

def mutate(s):
    out = []
    for c in s:
        r = rng.random()
        if r < 0.25:
            out.append(rng.choice(AA))
        elif r < 0.28:
            continue
        elif r < 0.31:
            out.append(c + seq(rng.randint(1, 4)))
        else:
            out.append(c)
    return "".join(out)

def write(path, recs):
    with open(path, "w") as f:
        for name, s in recs:
            f.write(f">{name} generated\n")
            for i in range(0, len(s), 60):
                f.write(s[i:i + 60] + "\n")

queries = [("q_short", seq(40)), ("q_mid", seq(350)), ("q_block", seq(3000)), ("q_overflow", seq(7500))]
db = [("t_len1", "W"), ("t_len1b", "A"), ("t_len10k", seq(10000)), ("t_len100k", seq(100000))]
db += [(f"t_rand{i}", seq(rng.randint(2, 800))) for i in range(120)]
for name, q in queries:
    db += [(f"h_{name}_{k}", mutate(q)) for k in range(2)]
db.append(("t_overflow_self", queries[3][1]))
db.append(("t_block_self", queries[2][1]))
rng.shuffle(db)
write(f"{out_dir}/queries.fa", queries)
write(f"{out_dir}/db.fa", db)
