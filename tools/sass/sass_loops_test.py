#!/usr/bin/env python3
"""sass_loops.py on small hand-written listings in cuobjdump's and nvdisasm's forms."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_loops  # noqa: E402

# An outer loop (0x0040-0x00f0) around an inner one (0x0060-0x00d0) whose copy the compiler
# moved after the kernel's EXIT (0x0110-0x0120, back to 0x0080); a spill outside the loops; a
# second function without an MMA.
CUOBJDUMP = """
\tcode for sm_90a
\t\tFunction : _Z4gemmPf
\t.headerflags\t@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;          /* 0x00000a00ff017b82 */
        /*0010*/                   STL [R1], R2 ;                   /* 0x0000000201007387 */
        /*0020*/                   MOV R3, RZ ;                     /* 0x000000ff00037202 */
        /*0030*/                   LDL R2, [R1] ;                   /* 0x0000000001027983 */
        /*0040*/                   IADD3 R4, R4, 0x1, RZ ;          /* 0x0000000104047810 */
        /*0050*/                   MOV R5, RZ ;                     /* 0x000000ff00057202 */
        /*0060*/                   LDSM.16.M88.4 R8, [R6] ;         /* 0x000000000608783b */
        /*0070*/              @!P0 BRA 0x110 ;                      /* 0x0000000000008947 */
        /*0080*/                   HMMA.16816.F32 R12, R8, R10, R12 ; /* 0x0000000a080c723c */
        /*0090*/                   HMMA.16816.F32 R16, R8, R10, R16 ; /* 0x0000000a0810723c */
        /*00a0*/                   LOP3.LUT R6, R6, 0x20, RZ, 0x3c, !PT ; /* 0x0000002006067812 */
        /*00b0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;    /* 0x0000000000007b1d */
        /*00c0*/                   ISETP.NE.AND P1, PT, R5, 0x4, PT ; /* 0x000000040500780c */
        /*00d0*/               @P1 BRA 0x60 ;                       /* 0xffffff8000001947 */
        /*00e0*/                   ISETP.NE.AND P2, PT, R4, 0x8, PT ; /* 0x000000080400780c */
        /*00f0*/               @P2 BRA 0x40 ;                       /* 0xffffff4000002947 */
        /*0100*/                   EXIT ;                           /* 0x000000000000794d */
        /*0110*/                   LDGSTS.E.BYPASS.LTC128B.128 [R7], desc[UR4][R2.64] ; /* 0x0000000002077fae */
        /*0120*/                   BRA 0x80 ;                       /* 0xffffff6000007947 */
\t\t..........

\t\tFunction : _Z4copyPf
        /*0000*/                   LDG.E R2, desc[UR4][R4.64] ;     /* 0x0000000404027981 */
        /*0010*/                   BRA 0x0 ;                        /* 0xfffffff000007947 */
"""

# The same inner loop as nvdisasm prints it: labels instead of addresses.
NVDISASM = """
        .text._Z4gemmPf:
        /*0000*/                   MOV R5, RZ ;
.L_x_0:
        /*0010*/                   HGMMA.64x128x16.F32 R24, gdesc[UR32], R24 ;
        /*0020*/                   UTMALDG.2D [UR8], [UR4] ;
        /*0030*/               @P1 BRA `(.L_x_0) ;
        /*0040*/                   EXIT ;
"""


class SassLoops(unittest.TestCase):
    def test_opcode_drops_predicate_and_modifiers(self):
        self.assertEqual(sass_loops.opcode("@!P0 LDGSTS.E.BYPASS.LTC128B.128 [R7], desc[UR4][R2.64]"), "LDGSTS")
        self.assertEqual(sass_loops.opcode("HMMA.16816.F32 R12, R8, R10, R12"), "HMMA")
        self.assertEqual(sass_loops.kind("HGMMA"), "mma")
        self.assertEqual(sass_loops.kind("IMAD"), "other")

    def test_innermost_loop_with_its_out_of_line_block(self):
        functions, labels = sass_loops.parse(CUOBJDUMP)
        self.assertEqual(sorted(functions), ["_Z4copyPf", "_Z4gemmPf"])
        gemm = functions["_Z4gemmPf"]
        self.assertEqual(len(gemm), 19)
        self.assertEqual(sorted(sass_loops.loops(gemm, labels["_Z4gemmPf"])), [(4, 15), (6, 13)])
        body = sass_loops.innermost_mma_loop(gemm, labels["_Z4gemmPf"])
        # 0x60-0xd0, then the copy at 0x110 and its branch back.
        self.assertEqual([a for a, _ in body], [0x60, 0x70, 0x80, 0x90, 0xa0, 0xb0, 0xc0, 0xd0, 0x110, 0x120])
        counts = sass_loops.count(body)
        self.assertEqual((counts["mma"], counts["ldsm"], counts["cp.async"], counts["sync"], counts["branch"],
                          counts["other"], counts["spill"]), (2, 1, 1, 1, 3, 2, 0))

    def test_short_name(self):
        self.assertEqual(
            sass_loops.short_name("void tessel::gemm_kernel_sm80<tessel::GemmConfigSm80<128, 8>, true, "
                                  "tessel::MatrixOperand>(tessel::GemmParams, tessel::MatrixOperand)"),
            "gemm_kernel_sm80<GemmConfigSm80<128, 8>, true, MatrixOperand>")
        self.assertEqual(sass_loops.short_name("_Z4gemmPf"), "_Z4gemmPf")

    def test_rows_skip_functions_without_an_mma_loop(self):
        table = sass_loops.rows(CUOBJDUMP)
        self.assertEqual(len(table), 1)
        row = table[0]
        self.assertIn("gemm", row["name"])
        self.assertEqual((row["instructions"], row["spills"], row["loop"], row["mma"]), (19, 2, 10, 2))
        self.assertEqual(sass_loops.rows(CUOBJDUMP, kernel_filter="copy"), [])

    def test_nvdisasm_labels(self):
        table = sass_loops.rows(NVDISASM.replace(".text._Z4gemmPf:", "\t\tFunction : _Z4gemmPf"))
        self.assertEqual(len(table), 1)
        self.assertEqual((table[0]["loop"], table[0]["mma"], table[0]["tma"], table[0]["branch"]), (3, 1, 1, 1))

    def run_main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = sass_loops.main(list(argv))
            except SystemExit as e:
                status = e.code
        return status, out.getvalue(), err.getvalue()

    def test_command_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".sass", delete=False) as f:
            f.write(CUOBJDUMP)
        try:
            status, out, _ = self.run_main(f.name, "--csv")
            self.assertEqual(status, 0)
            lines = out.splitlines()
            self.assertEqual(lines[0].split(",")[:5], ["name", "instructions", "spills", "loop", "mma"])
            self.assertEqual(lines[1].split(",")[1:5], ["19", "2", "10", "2"])
            status, out, _ = self.run_main(f.name)
            self.assertEqual(status, 0)
            self.assertIn("innermost", out)
            status, _, _ = self.run_main(f.name, "--kernel", "no_such_kernel")
            self.assertIn("matches --kernel no_such_kernel", str(status))
        finally:
            os.unlink(f.name)
        status, _, _ = self.run_main("/nonexistent/listing.sass")
        self.assertIn("no such file", str(status))


if __name__ == "__main__":
    unittest.main()
