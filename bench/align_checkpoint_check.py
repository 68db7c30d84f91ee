#!/usr/bin/env python3
"""cudp-align on the GPU against its host backend on pairs large enough to be cut at checkpoint rows (300 DNA pairs of
1-9 kbp, a seeded mutated copy each, every mode): the scores of the SAM records (AS:i) must be equal.

    python3 bench/align_checkpoint_check.py build-gpu/bin/cudp-align
"""
import os
import random
import re
import subprocess
import sys
import tempfile

PAIRS = 300


def mutated(rng, bases):
    """About 8% substitutions and 1% each of insertions and deletions."""
    out = []
    for c in bases:
        roll = rng.random()
        if roll < 0.01:
            continue
        if roll < 0.02:
            out.append(rng.choice('ACGT'))
        out.append(rng.choice('ACGT') if roll < 0.1 else c)
    return ''.join(out)


def main():
    aligner = sys.argv[1]
    rng = random.Random(7)
    folder = tempfile.mkdtemp()
    queries, targets = os.path.join(folder, 'q.fa'), os.path.join(folder, 't.fa')
    with open(queries, 'w') as q, open(targets, 'w') as t:
        for k in range(PAIRS):
            bases = ''.join(rng.choice('ACGT') for _ in range(rng.randint(1000, 9000)))
            q.write('>q%d\n%s\n' % (k, bases))
            t.write('>t%d\n%s\n' % (k, mutated(rng, bases)))
    failed = False
    for mode in ['global', 'local', 'semiglobal']:
        scores = {}
        for backend in ['cuda', 'host']:
            run = subprocess.run([aligner, '--query', queries, '--target', targets, '--mode', mode, '--format', 'sam',
                                  '--backend', backend], capture_output=True, text=True)
            if run.returncode:
                print('%s, %s: exit %d: %s' % (mode, backend, run.returncode, run.stderr[-500:]))
                return 1
            scores[backend] = re.findall(r'AS:i:(-?\d+)', run.stdout)
        same = scores['cuda'] == scores['host'] and len(scores['cuda']) == PAIRS
        failed = failed or not same
        print('cudp-align %s, %d DNA pairs 1-9 kbp, SAM AS:i cuda vs host: %s' %
              (mode, PAIRS, 'equal' if same else 'DIFFERENT'))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
