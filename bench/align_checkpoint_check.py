#!/usr/bin/env python3
"""cudp-align on the GPU against its host backend on pairs large enough to be cut at checkpoint rows (300 DNA pairs of
1-9 kbp, a seeded mutated copy each, every mode): the scores of the SAM records (AS:i) must be equal.

    python3 bench/align_checkpoint_check.py build-gpu/examples/align/cudp-align
"""
import os
import random
import re
import subprocess
import sys
import tempfile
random.seed(7)
b = sys.argv[1]
folder = tempfile.mkdtemp()
qf, tf = os.path.join(folder, 'q.fa'), os.path.join(folder, 't.fa')
q = open(qf, 'w'); t = open(tf, 'w')
for k in range(300):
    n = random.randint(1000, 9000)
    a = ''.join(random.choice('ACGT') for _ in range(n))
    s = []
    for c in a:
        r = random.random()
        if r < 0.01: continue
        if r < 0.02: s.append(random.choice('ACGT'))
        s.append(random.choice('ACGT') if r < 0.1 else c)
    q.write('>q%d\n%s\n' % (k, a)); t.write('>t%d\n%s\n' % (k, ''.join(s)))
q.close(); t.close()
scores = {}
for mode in ['global', 'local', 'semiglobal']:
    for be in ['cuda', 'host']:
        out = subprocess.run([b, '--query', qf, '--target', tf, '--mode', mode, '--format', 'sam', '--backend', be], capture_output=True, text=True)
        if out.returncode: print(mode, be, 'FAILED', out.stderr[-500:]); sys.exit(1)
        scores[(mode, be)] = re.findall(r'AS:i:(-?\d+)', out.stdout)
    same = scores[(mode, 'cuda')] == scores[(mode, 'host')] and len(scores[(mode, 'cuda')]) == 300
    print('cudp-align %s, 300 DNA pairs 1-9 kbp, SAM AS:i cuda vs host: %s' % (mode, 'equal' if same else 'DIFFERENT'))
    if not same:
        sys.exit(1)
