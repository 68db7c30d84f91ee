# Runs inside gdb (gdb -batch -x THIS hmmpgmd2msa_utest); see hmmsearch_filters.py, which drives it.
#
# HMMER's MSV, Viterbi and Forward filter scores of every target, from HMMER's own code: hmmpgmd2msa_utest (a
# unit-test program of hmmer-examples, built with debug information) calls p7_Pipeline. At its first call this
# script saves the registers, then for each target puts the target's digital sequence in place of the utest's,
# sets the profile's length model with HMMER's p7_oprofile_ReconfigLength, lets the pipeline run its
# p7_MSVFilter and read the raw score where that call returns, calls p7_ViterbiFilter itself on the same
# arguments (the pipeline would skip it for targets with a strong MSV score), lets the pipeline run the
# p7_ForwardParser inlined after it and reads that raw score where its engine returns, then restores the saved
# registers, which abandons the call and re-enters p7_Pipeline for the next target. F1 = F2 = F3 = 1 and no bias
# filter keep the pipeline on that path whatever the scores.
#
# Environment: ORACLE_MODEL (protein HMM file), ORACLE_TARGETS (lines "name<TAB>digital codes as hex"),
# ORACLE_OUT (lines "name msv_status msv_bits vit_status vit_bits fwd_status fwd_bits", the scores in nats as the
# hex of their float bits; statuses are HMMER's return codes).
import os
import struct

import gdb

PIPELINE = "'p7_Pipeline.constprop.0.isra.0'"
# Offsets in p7_Pipeline of the instructions right after `call p7_MSVFilter` and `call forward_engine` (the
# ForwardParser's, inlined) in hmmer-examples 3.3.2's binary; checked below against the disassembly.
AFTER_MSV, AFTER_FORWARD = 239, 485
AFTER_CREATE_AMINO = 144  # in hmmpgmd2msa_utest
REGISTERS = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13",
             "r14", "r15", "eflags", "rip"]


def value(expression):
    return gdb.parse_and_eval(expression)


def float_bits(address):
    raw = bytes(gdb.selected_inferior().read_memory(address, 4))
    return "%08x" % struct.unpack("<I", raw)[0]


def check_call_site(offset, callee, function=PIPELINE):
    """The instruction before offset must be the call we expect, or the offsets belong to another build."""
    start = int(value("(long) %s" % function))
    text = gdb.execute("x/i %d" % (start + offset - 5), to_string=True)
    if callee not in text.splitlines()[0]:
        raise gdb.GdbError("p7_Pipeline+%d does not follow a call to %s: %s" % (offset, callee, text))


def main():
    out = open(os.environ["ORACLE_OUT"], "w")
    targets = []
    with open(os.environ["ORACLE_TARGETS"]) as f:
        for line in f:
            name, codes = line.split()
            targets.append((name, bytes.fromhex(codes)))
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("break %s" % PIPELINE)
    if os.environ.get("ORACLE_DNA"):
        # The utest reads its model with the amino alphabet that create_amino returns; a DNA alphabet in its place
        # lets it read DNA models.
        utest = "'hmmpgmd2msa_utest.constprop.0'"
        check_call_site(AFTER_CREATE_AMINO, "create_amino", utest)
        gdb.execute("break *(%s + %d)" % (utest, AFTER_CREATE_AMINO))
        gdb.execute("run %s > /dev/null" % os.environ["ORACLE_MODEL"])
        gdb.execute("set $rax = (long) esl_alphabet_Create(2)")  # eslDNA
        gdb.execute("continue")
    else:
        gdb.execute("run %s > /dev/null" % os.environ["ORACLE_MODEL"])
    if int(value("((P7_OPROFILE *) om)->abc->type")) != (2 if os.environ.get("ORACLE_DNA") else 3):
        raise gdb.GdbError("the utest's profile is not in the expected alphabet")
    check_call_site(AFTER_MSV, "p7_MSVFilter")
    check_call_site(AFTER_FORWARD, "forward_engine")
    gdb.execute("delete")
    gdb.execute("break *(%s + %d)" % (PIPELINE, AFTER_MSV))
    # forward_engine's score pointer (its sixth argument, r9) is read at the call: fwdsc has no location in the
    # debug information there.
    gdb.execute("break *(%s + %d)" % (PIPELINE, AFTER_FORWARD - 5))
    gdb.execute("break *(%s + %d)" % (PIPELINE, AFTER_FORWARD))
    frame = gdb.selected_frame()
    saved = {r: int(frame.read_register(r)) for r in REGISTERS}
    pli, om, sq = (int(value("(long) %s" % v)) for v in ("pli", "om", "sq"))
    gdb.execute("set var ((P7_PIPELINE *) %d)->F1 = 1.0" % pli)
    gdb.execute("set var ((P7_PIPELINE *) %d)->F2 = 1.0" % pli)
    gdb.execute("set var ((P7_PIPELINE *) %d)->F3 = 1.0" % pli)
    gdb.execute("set var ((P7_PIPELINE *) %d)->do_biasfilter = 0" % pli)
    longest = max(len(c) for _, c in targets)
    buf = int(value("(long) malloc(%d)" % (longest + 2)))
    vit_score = int(value("(long) malloc(4)"))
    inferior = gdb.selected_inferior()
    for name, codes in targets:
        L = len(codes)
        inferior.write_memory(buf, b"\xff" + codes + b"\xff")
        gdb.execute("set var ((ESL_SQ *) %d)->dsq = (ESL_DSQ *) %d" % (sq, buf))
        gdb.execute("set var ((ESL_SQ *) %d)->n = %d" % (sq, L))
        gdb.execute("call (void) 'p7_oprofile_ReconfigLength.isra.0'((P7_OPROFILE *) %d, %d)" % (om, L))
        gdb.execute("continue", to_string=True)
        if int(value("$pc")) != int(value("(long) %s" % PIPELINE)) + AFTER_MSV:
            raise gdb.GdbError("%s: the pipeline did not stop after p7_MSVFilter" % name)
        msv_status = int(value("$eax"))
        msv = float_bits(int(value("(long) &usc")))
        vit_status = int(value("p7_ViterbiFilter((ESL_DSQ *) %d, %d, (P7_OPROFILE *) %d, "
                               "((P7_PIPELINE *) %d)->oxf, (float *) %d)" % (buf, L, om, pli, vit_score)))
        vit = float_bits(vit_score)
        gdb.execute("continue", to_string=True)
        if int(value("$pc")) != int(value("(long) %s" % PIPELINE)) + AFTER_FORWARD - 5:
            raise gdb.GdbError("%s: the pipeline did not reach the Forward parser" % name)
        fwd_address = int(value("$r9"))
        gdb.execute("continue", to_string=True)
        if int(value("$pc")) != int(value("(long) %s" % PIPELINE)) + AFTER_FORWARD:
            raise gdb.GdbError("%s: the pipeline did not stop after the Forward parser" % name)
        fwd_status = int(value("$eax"))
        fwd = float_bits(fwd_address)
        out.write("%s %d %s %d %s %d %s\n" % (name, msv_status, msv, vit_status, vit, fwd_status, fwd))
        for r in REGISTERS:
            gdb.execute("set $%s = %d" % (r, saved[r]))
    out.close()
    gdb.execute("kill")


main()
