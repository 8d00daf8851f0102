#!/usr/bin/env python3
"""Where a kernel's warps wait, from Nsight Compute's source page (SASS) as CSV:

    ncu -i REPORT.ncu-rep --page source --csv --print-source sass > K.csv   (ncu_gemm.sh SOURCE=1)
    tools/sass/ncu_source_summary.py K.csv [--top N] [--range NAME=LO:HI ...] [--per COUNT]

Prints the stall samples by reason; the N instructions with the most samples (address, SASS,
times executed, samples, their two main reasons); and the landmarks of a TMA + wgmma kernel
(copies UTMALDG/UBLKCP, HGMMA, WARPGROUP waits, mbarrier waits and arrivals SYNCS (not
their initializations), register moves USETMAXREG) with how often they ran, which says who issues what per K tile and block (e.g. an
HGMMA run blocks x warps x K tiles times), and where the samples sit around them. Each
--range sums the samples and reasons of the instructions at addresses LO..HI (hex, inclusive),
e.g. one warp role's code: `--range producers=0x7eb000:0x7f9000 --range mma=0x7a2800:0x7a3960`
(the landmarks give the bounds; the addresses are the page's, or their low hex digits, as many
as the longer bound has), and counts the instructions the range executed, by opcode; --per
divides those counts by COUNT, e.g. the warps times the tiles to read instructions a warp ran
per tile (the executed counts are a warp's issues, predicated-off ones included).
"""
import argparse
import collections
import csv
import re
import sys

LANDMARKS = re.compile(r"UTMALDG|UBLKCP|HGMMA|WARPGROUP|SYNCS|USETMAXREG|NANOSLEEP")
PREDICATE = re.compile(r"^@!?U?P[T0-9]+\s+")


def opcode(sass):
    """The instruction's opcode without predicate and modifiers: '@!P0 LDG.E.U16 R1, [R2]' -> 'LDG'."""
    words = PREDICATE.sub("", sass.strip()).split()
    return words[0].split(".")[0] if words else "?"


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    # The first row names the kernel; the second holds the column names.
    header_at = next(i for i, r in enumerate(rows) if "Address" in r and "Source" in r)
    header = rows[header_at]
    data = [dict(zip(header, r)) for r in rows[header_at + 1:] if len(r) == len(header)]
    kernel = rows[0][1] if header_at > 0 and len(rows[0]) > 1 else "?"
    return kernel, header, data


def number(v):
    try:
        return int(str(v).replace(",", "") or 0)
    except ValueError:
        return 0


def number_hex(v):
    try:
        return int(str(v), 16)
    except ValueError:
        return -1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--range", action="append", default=[], metavar="NAME=LO:HI",
                    help="sum samples and reasons over the addresses LO..HI (hex)")
    ap.add_argument("--per", type=float, default=1.0, metavar="COUNT",
                    help="divide a range's executed instructions by COUNT (e.g. warps x tiles)")
    args = ap.parse_args()
    if args.per <= 0:
        sys.exit(f"--per {args.per}: expected a positive count")
    kernel, header, data = read(args.csv)
    reasons = [c for c in header if c.startswith("stall_") and "Not Issued" not in c]
    samples = "Warp Stall Sampling (All Samples)"
    total = sum(number(d[samples]) for d in data)
    print(f"kernel: {kernel[:160]}")
    print(f"{len(data)} instructions, {total} stall samples")
    if total == 0:
        sys.exit("no samples: was the report taken with --section SourceCounters?")
    sums = {c: sum(number(d[c]) for d in data) for c in reasons}
    for c, v in sorted(sums.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {c[6:]:<20} {v:7d}  {100 * v / total:5.1f}%")

    def line(d):
        top = sorted(((number(d[c]), c[6:]) for c in reasons), reverse=True)[:2]
        why = ", ".join(f"{c} {v}" for v, c in top if v)
        return f"  {d['Address'][-6:]}  {d['Source'][:64]:<64} {number(d['Instructions Executed']):>8} {number(d[samples]):>6}  {why}"

    print(f"\nthe {args.top} instructions with the most samples (address, SASS, executed, samples, reasons):")
    for d in sorted(data, key=lambda d: -number(d[samples]))[: args.top]:
        print(line(d))
    for spec in args.range:
        name, _, bounds = spec.partition("=")
        lo, _, hi = bounds.partition(":")
        try:
            lo, hi = int(lo, 16), int(hi, 16)
        except ValueError:
            sys.exit(f"--range {spec}: expected NAME=LO:HI with hex addresses")
        # Bounds shorter than the page's addresses name their low digits (as many as the
        # longer bound has: "0:402d90" is the low six).
        bits = 4 * max(len(b.lower().removeprefix("0x")) for b in bounds.split(":"))
        inside = [d for d in data if lo <= number_hex(d["Address"]) % (1 << bits) <= hi]
        n = sum(number(d[samples]) for d in inside)
        top = sorted(((sum(number(d[c]) for d in inside), c[6:]) for c in reasons), reverse=True)[:4]
        why = ", ".join(f"{c} {v}" for v, c in top if v)
        print(f"range {name}: {len(inside)} instructions, {n} samples ({100 * n / total:.1f}%): {why}")
        ops = collections.Counter()
        for d in inside:
            ops[opcode(d["Source"])] += number(d["Instructions Executed"])
        executed = sum(ops.values())
        mix = ", ".join(f"{op} {v / args.per:.4g}" for op, v in ops.most_common(10) if v)
        per = f" / {args.per:g}" if args.per != 1 else ""
        print(f"  executed{per}: {executed / args.per:.4g}: {mix}")
    print("\nlandmarks that ran (the instruction after a wait holds the samples of its spin):")
    for i, d in enumerate(data):
        if LANDMARKS.search(d["Source"]) and "SYNCS.EXCH" not in d["Source"] and number(d["Instructions Executed"]) > 0:
            print(line(d))
            nxt = data[i + 1] if i + 1 < len(data) else None
            if "SYNCS.PHASECHK" in d["Source"] and nxt is not None and number(nxt[samples]) > 0:
                print(line(nxt))


if __name__ == "__main__":
    main()
