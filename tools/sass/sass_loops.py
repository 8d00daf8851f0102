#!/usr/bin/env python3
"""The instruction mix of each kernel's innermost tensor-core loop, read from its SASS.

How a mainloop compares with another one (tessel's against CUTLASS's, before against after
a change) is a question of what it issues per K tile: the MMAs, the shared-memory loads that
feed them, the copies, and everything else (address and predicate arithmetic, descriptors,
barriers). This tool finds, in every kernel of a cuobjdump listing, the innermost loop (a
backward branch and its target) that contains an MMA, with the blocks the compiler moved out
of line (a predicated copy), and counts its instructions by kind. Spill instructions
(STL/LDL) are counted in the loop and in the whole kernel.

    cuobjdump -sass libtessel.so > tessel.sass        # or an object file, or a cubin
    tools/sass/sass_loops.py tessel.sass --kernel gemm_kernel_sm80
    tools/sass/sass_loops.py instance.o --csv         # runs cuobjdump itself

The loop may hold more than one K tile (the compiler unrolls): divide by the MMAs a K tile
issues. cuobjdump is in the CUDA toolkit, or in the `nvidia-cuda-cuobjdump` wheel
(`pip download --no-deps nvidia-cuda-cuobjdump`, unzip, `nvidia/cu13/bin/cuobjdump`).
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

# The kinds an instruction is counted as, by opcode (the part before the first '.').
KINDS = [
    ("mma", {"HMMA", "HGMMA", "IMMA", "IGMMA", "QGMMA", "DMMA", "BMMA"}),
    ("ldsm", {"LDSM"}),
    ("cp.async", {"LDGSTS", "LDGDEPBAR"}),
    ("tma", {"UTMALDG", "UTMASTG", "UBLKCP", "UTMAPF"}),
    ("shared", {"LDS", "STS", "STSM"}),
    ("global", {"LDG", "STG", "RED", "ATOMG"}),
    ("spill", {"STL", "LDL"}),
    ("sync", {"BAR", "DEPBAR", "SYNCS", "WARPGROUP", "WARPSYNC", "ARRIVES"}),
    ("branch", {"BRA", "BRX", "EXIT", "RET", "CALL", "YIELD"}),
]
KIND_OF = {op: kind for kind, ops in KINDS for op in ops}
COLUMNS = [kind for kind, _ in KINDS] + ["other"]

FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^\s*(\.L_x_\d+):")
BRANCH_TARGET = re.compile(r"\bBRA\b.*?(?:(0x[0-9a-f]+)|\(?(\.L_x_\d+)\)?)\s*$")


def opcode(text):
    """The opcode of an instruction's text, its predicate and modifiers removed: HMMA."""
    words = text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


def kind(op):
    return KIND_OF.get(op, "other")


def parse(listing):
    """{function name: [(address, text)]} of a cuobjdump -sass (or nvdisasm) listing."""
    functions, name, labels = {}, None, {}
    pending = []
    for line in listing.splitlines():
        m = FUNCTION.match(line)
        if m:
            name = m.group(1)
            functions[name] = []
            labels[name] = {}
            continue
        if name is None:
            continue
        m = LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = INSTRUCTION.match(line)
        if m:
            address = int(m.group(1), 16)
            for label in pending:
                labels[name][label] = address
            pending = []
            functions[name].append((address, m.group(2)))
    return functions, labels


def branch_target(text, labels):
    """The address a BRA goes to, or None."""
    m = BRANCH_TARGET.search(text) if opcode(text) == "BRA" else None
    if not m:
        return None
    return int(m.group(1), 16) if m.group(1) else labels.get(m.group(2))


def loops(instructions, labels):
    """Every loop as (first index, last index): a branch back to an earlier instruction, with
    no unconditional EXIT between (that branch ends a block moved out of line, after the EXIT)."""
    index = {address: i for i, (address, _) in enumerate(instructions)}
    exits = [i for i, (_, text) in enumerate(instructions) if opcode(text) in ("EXIT", "RET") and not text.startswith("@")]
    found = []
    for i, (address, text) in enumerate(instructions):
        target = branch_target(text, labels)
        if target is not None and target <= address and target in index:
            if not any(index[target] <= e <= i for e in exits):
                found.append((index[target], i))
    return found


def loop_body(instructions, labels, first, last):
    """The loop's instructions, with the blocks the compiler placed after it: a branch out of
    [first, last] to code that branches back in (a predicated copy, say) belongs to the loop."""
    index = {address: i for i, (address, _) in enumerate(instructions)}
    body = list(range(first, last + 1))
    seen, todo = set(body), list(body)
    while todo:
        i = todo.pop()
        target = branch_target(instructions[i][1], labels)
        if target is None or target not in index or first <= index[target] <= last:
            continue
        block = []
        for j in range(index[target], min(len(instructions), index[target] + 2000)):
            if j in seen or (first <= j <= last):
                break
            block.append(j)
            text = instructions[j][1]
            back = branch_target(text, labels)
            if back is not None and not text.startswith("@") and back in index and first <= index[back] <= last:
                seen.update(block)
                todo.extend(block)
                body.extend(block)
                break
            if opcode(text) in ("EXIT", "RET"):
                break
    return [instructions[i] for i in sorted(set(body))]


def innermost_mma_loop(instructions, labels):
    """The innermost loop that issues an MMA (the shortest range), with its out-of-line blocks."""
    best = None
    for first, last in loops(instructions, labels):
        if any(kind(opcode(t)) == "mma" for _, t in instructions[first:last + 1]):
            if best is None or last - first < best[1] - best[0]:
                best = (first, last)
    return None if best is None else loop_body(instructions, labels, *best)


def count(instructions):
    c = collections.Counter(kind(opcode(t)) for _, t in instructions)
    return {column: c.get(column, 0) for column in COLUMNS}


def demangle(names):
    tool = shutil.which("c++filt")
    if not tool or not names:
        return {n: n for n in names}
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def short_name(name):
    """A demangled name without its return type, parameter list and namespaces, for the table."""
    name = re.sub(r"^void ", "", name)
    depth = 0
    for i, ch in enumerate(name):  # cut the parameter list: the '(' outside every template
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "(" and depth == 0 and i > 0:
            name = name[:i]
            break
    return re.sub(r"\b(tessel|cutlass|cute|detail)::", "", name)


def read_listing(path):
    with open(path, "rb") as f:
        head = f.read(4)
    if head != b"\x7fELF" and not path.endswith((".cubin", ".fatbin", ".o", ".so")):
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    tool = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    if not tool:
        sys.exit(f"sass_loops: {path} is a binary and no cuobjdump was found (PATH or $CUOBJDUMP); "
                 "pass a `cuobjdump -sass` listing instead")
    done = subprocess.run([tool, "-sass", path], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"sass_loops: cuobjdump -sass {path} failed: {done.stderr.strip()}")
    return done.stdout


def rows(listing, kernel_filter=None):
    """One row per function with an MMA loop: name, instructions, spills, the loop's counts."""
    functions, labels = parse(listing)
    names = [n for n in functions if kernel_filter is None or kernel_filter in n]
    readable = demangle(names)
    result = []
    for name in names:
        body = innermost_mma_loop(functions[name], labels[name])
        if body is None:
            continue
        whole = count(functions[name])
        result.append({"name": readable[name], "instructions": len(functions[name]), "spills": whole["spill"],
                       "loop": len(body), **count(body)})
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("listing", help="cuobjdump -sass output, or an object file, shared library or cubin")
    parser.add_argument("--kernel", help="only functions whose (mangled) name contains this")
    parser.add_argument("--csv", action="store_true", help="comma-separated, full names")
    parser.add_argument("--width", type=int, default=100, help="name column width in the table (default 100)")
    args = parser.parse_args(argv)
    if not os.path.exists(args.listing):
        sys.exit(f"sass_loops: no such file: {args.listing}")
    table = rows(read_listing(args.listing), args.kernel)
    if not table:
        sys.exit("sass_loops: no function with a loop that issues an MMA" +
                 (f" matches --kernel {args.kernel}" if args.kernel else ""))
    header = ["instructions", "spills", "loop"] + COLUMNS
    if args.csv:
        print(",".join(["name"] + header))
        for r in table:
            print(",".join(['"' + r["name"].replace('"', '""') + '"'] + [str(r[h]) for h in header]))
        return 0
    print(f"{'kernel':<{args.width}} " + " ".join(f"{h:>8}" for h in header))
    for r in table:
        name = short_name(r["name"])
        name = name if len(name) <= args.width else name[:args.width - 3] + "..."
        print(f"{name:<{args.width}} " + " ".join(f"{r[h]:>8}" for h in header))
    print("instructions, spills (STL/LDL instructions): the whole kernel; loop and the rest: its innermost "
          "loop that issues an MMA, with its blocks moved out of line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
