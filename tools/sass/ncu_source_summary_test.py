#!/usr/bin/env python3
"""ncu_source_summary.py on a small hand-written source page in ncu's CSV form."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_source_summary  # noqa: E402

# A kernel-name row, the header, then a barrier initialization, an MMA warp's full-barrier
# wait and its spin branch (the most samples), an HGMMA, a wgmma wait and a copy.
HEADER = ('"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)",'
          '"Instructions Executed","stall_long_sb","stall_long_sb (Not Issued)","stall_wait","stall_barrier"')
ROWS = [
    '"0x10","SYNCS.EXCH.64 URZ, [UR4], UR10","0","0","98","0","0","0","0"',
    '"0x20","SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R9+URZ+0x38000], R94","2","1","3528","0","0","2","0"',
    '"0x30","@!P0  BRA 0x7f94cf7ec9f0","70","65","3528","70","65","0","0"',
    '"0x40","HGMMA.64x128x16.F32 R24, gdesc[UR8].tnspB, R24, gsb0","5","3","3528","0","0","5","0"',
    '"0x50","WARPGROUP.DEPBAR.LE gsb0, 0x1","20","20","3528","0","0","0","20"',
    '"0x60","UTMALDG.4D.IM2COL [UR8], [UR14], UR4","3","1","882","0","0","3","0"',
    '"0x70","IADD3 R1, R1, 0x1, RZ","0","0","0","0","0","0","0"',
]
CSV = '"Kernel Name","gemm_kernel_sm90_tma<...>"\n' + HEADER + "\n" + "\n".join(ROWS) + "\n"


def run(text, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(text)
    out = io.StringIO()
    try:
        sys.argv = ["ncu_source_summary.py", f.name, *args]
        with contextlib.redirect_stdout(out):
            ncu_source_summary.main()
    finally:
        os.unlink(f.name)
    return out.getvalue()


class SummaryTest(unittest.TestCase):
    def test_reasons_are_summed_and_shared_out(self):
        text = run(CSV)
        self.assertIn("kernel: gemm_kernel_sm90_tma<...>", text)
        self.assertIn("7 instructions, 100 stall samples", text)
        # The not-issued samples are a part of each reason's, not a reason of their own.
        reasons = text.split("instructions with the most samples")[0]
        self.assertNotIn("Not Issued", reasons)
        self.assertRegex(text, r"long_sb\s+70\s+70\.0%")
        self.assertRegex(text, r"barrier\s+20\s+20\.0%")
        self.assertRegex(text, r"wait\s+10\s+10\.0%")

    def test_the_busiest_instruction_comes_first(self):
        busiest = run(CSV, "--top", "2").split("(address, SASS, executed, samples, reasons):\n")[1].splitlines()
        self.assertIn("BRA 0x7f94cf7ec9f0", busiest[0])
        self.assertIn("long_sb 70", busiest[0])
        self.assertIn("WARPGROUP.DEPBAR", busiest[1])

    def test_landmarks_leave_out_initializations_and_show_the_spin(self):
        landmarks = run(CSV).split("landmarks that ran")[1]
        self.assertNotIn("SYNCS.EXCH", landmarks)
        lines = landmarks.splitlines()[1:]
        wait = next(i for i, l in enumerate(lines) if "TRYWAIT" in l)
        self.assertIn("BRA 0x7f94cf7ec9f0", lines[wait + 1])  # the samples of the wait's spin
        self.assertTrue(any("HGMMA" in l and " 3528 " in l for l in lines))
        self.assertTrue(any("UTMALDG" in l and " 882 " in l for l in lines))
        self.assertFalse(any("IADD3" in l for l in lines))

    def test_ranges_sum_one_roles_samples(self):
        text = run(CSV, "--range", "mma=0x20:0x50", "--range", "copies=60:70")
        self.assertIn("range mma: 4 instructions, 97 samples (97.0%): long_sb 70, barrier 20, wait 7", text)
        self.assertIn("range copies: 2 instructions, 3 samples (3.0%): wait 3", text)
        with self.assertRaises(SystemExit) as e:
            run(CSV, "--range", "bad=zz:10")
        self.assertIn("hex addresses", str(e.exception))

    def test_ranges_count_what_they_executed_by_opcode(self):
        text = run(CSV, "--range", "mma=0x20:0x50", "--per", "3528")
        # four instructions, 3528 times each: one a warp and K tile, predicates stripped
        self.assertIn("  executed / 3528: 4: SYNCS 1, BRA 1, HGMMA 1, WARPGROUP 1", text)
        whole = run(CSV, "--range", "all=0:0x70")  # the longer bound sets the digits
        self.assertIn("range all: 7 instructions, 100 samples (100.0%)", whole)
        self.assertIn("  executed: 1.509e+04: SYNCS 3626, BRA 3528, HGMMA 3528, WARPGROUP 3528, UTMALDG 882", whole)
        with self.assertRaises(SystemExit) as e:
            run(CSV, "--per", "0")
        self.assertIn("positive count", str(e.exception))

    def test_a_page_without_samples_is_an_error(self):
        empty = CSV.replace('"70","65","3528","70","65"', '"0","0","3528","0","0"')
        for v in ('"2","1"', '"5","3"', '"20","20"', '"3","1"'):
            empty = empty.replace(v, '"0","0"', 1)
        with self.assertRaises(SystemExit) as e:
            run(empty)
        self.assertIn("no samples", str(e.exception))


if __name__ == "__main__":
    unittest.main()
