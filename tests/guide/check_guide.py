#!/usr/bin/env python3
"""Golden-output test of the learner's guide (docs/guide/*.md).

The pages hold three kinds of checked material:

1. Console blocks: a fenced block opened with ```console whose lines starting with "$ " are
   commands and whose other lines are what the previous command prints (stdout and stderr
   together, as a terminal shows them). Every command must start with `tessel-layout`; it runs
   in bash (so `| head -n 20` works) with the built tessel-layout first on PATH, in a scratch
   copy of docs/guide's img/ folder, and its output must equal the block's text (trailing
   spaces of each line and trailing blank lines are ignored).
   A command may also start with `c++`, to show what the compiler says about one of the
   compile-fail cases of tests/host/compile_fail/: it runs in docs/guide with the build's own
   C++ compiler (--cxx) as `c++`, and must name a case of cases.cmake whose ctest regex matches
   the output the page shows, so the quoted error is the one the compile-fail test pins. With a
   compiler other than GCC (--cxx-id), whose wording differs, the check is that every static
   assertion message the page shows is in what the compiler prints.

2. Pictures: every `--svg img/NAME.svg` a command writes must be byte-identical to the file
   docs/guide/img/NAME.svg; every picture a page shows (![...](img/NAME.svg)) must exist and be
   written by some command of the guide; every file in img/ must be shown by a page.

3. Quotes of the code: a fenced block preceded by the line `<!-- quote: PATH -->` (PATH
   relative to the repository root) must appear in that file as consecutive lines (leading
   and trailing spaces ignored), so a quoted line of a kernel cannot silently change.

Usage:
  check_guide.py --tool path/to/tessel-layout --guide docs/guide --root .
  check_guide.py ... --update      rewrite the expected outputs and pictures from the tool
Exit status 0 when everything matches; 1 with one message per mismatch (page, line, command,
diff) otherwise.
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FENCE = re.compile(r"^(\s*)(`{3,})(\S*)\s*$")
QUOTE = re.compile(r"^<!--\s*quote:\s*(\S+)\s*-->\s*$")
PICTURE = re.compile(r"!\[[^\]]*\]\((img/[^)\s]+)\)")
SVG_ARG = re.compile(r"--svg[ =](\S+)")
COMPILE_FAIL_CASE = re.compile(r'tessel_compile_fail_test\(\s*(\S+)\s+(\S+)\s+"([^"]*)"\s*\)')
COMPILE_FAIL_SOURCE = re.compile(r"compile_fail/([\w.-]+\.cpp)")
ASSERT_MESSAGE = re.compile(r"static assertion failed: (.*)$")


class Block:
    """A fenced block: its page, the line of its opening fence (1-based), kind and lines."""

    def __init__(self, page, line, kind, lines, quote, indent):
        self.page, self.line, self.kind, self.lines, self.quote = page, line, kind, lines, quote
        self.indent = indent  # the fence's indentation (a block inside a list item)


def read_blocks(page):
    text = page.read_text(encoding="utf-8").split("\n")
    blocks, i, quote = [], 0, None
    while i < len(text):
        m = FENCE.match(text[i])
        if not m:
            q = QUOTE.match(text[i].strip())
            if q:
                quote = q.group(1)
            elif text[i].strip():
                quote = None
            i += 1
            continue
        indent, fence, kind, start = m.group(1), m.group(2), m.group(3), i
        i += 1
        body = []
        while i < len(text) and not text[i].strip().startswith(fence):
            line = text[i]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        blocks.append(Block(page, start + 1, kind, body, quote, indent))
        quote = None
        i += 1
    return blocks


def console_examples(block):
    """[(line number of the command, command, expected lines)] of a console block."""
    examples = []
    for offset, line in enumerate(block.lines):
        if line.startswith("$ "):
            examples.append((block.line + 1 + offset, line[2:], []))
        elif examples:
            examples[-1][2].append(line)
        elif line.strip():
            raise ValueError(f"{block.page.name}:{block.line}: a console block must start with '$ '")
    return examples


def normalise(lines):
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def compile_fail_cases(root):
    """{source file name: (test name, regex)} of tests/host/compile_fail/cases.cmake."""
    cases = root / "tests" / "host" / "compile_fail" / "cases.cmake"
    text = cases.read_text(encoding="utf-8") if cases.is_file() else ""
    return {m.group(2): (m.group(1), m.group(3)) for m in COMPILE_FAIL_CASE.finditer(text)}


def check_compiler_example(where, command, expected, actual, cases, gcc):
    """Failures of a `$ c++ ...` example: its case, its regex, and the compiler's words."""
    failures = []
    source = COMPILE_FAIL_SOURCE.search(command)
    case = cases.get(source.group(1)) if source else None
    if case is None:
        return [f"{where}: '$ {command}' compiles no case of tests/host/compile_fail/cases.cmake"]
    shown = "\n".join(normalise(expected))
    if not re.search(case[1], shown):
        failures.append(f"{where}: the page's output does not match the regex of ctest {case[0]} "
                        f"(\"{case[1]}\"): the quoted error is not the one the test pins")
    if gcc:
        if actual != normalise(expected):
            diff = "\n".join(difflib.unified_diff(normalise(expected), actual, "page says",
                                                  "the compiler prints", lineterm=""))
            failures.append(f"{where}: the output of\n  $ {command}\ndiffers from the page:\n{diff}")
    else:
        printed = "\n".join(actual)
        for line in normalise(expected):
            m = ASSERT_MESSAGE.search(line)
            if m and m.group(1) not in printed:
                failures.append(f"{where}: the compiler no longer says \"{m.group(1)}\"")
    return failures


def run(command, tool_dir, work):
    env = dict(os.environ, PATH=str(tool_dir) + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C")
    result = subprocess.run(["bash", "-c", command], cwd=work, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, timeout=60)
    return result.stdout.decode("utf-8", "replace").split("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tool", required=True, help="the built tessel-layout")
    parser.add_argument("--guide", required=True, help="docs/guide")
    parser.add_argument("--root", required=True, help="the repository root (for quotes)")
    parser.add_argument("--cxx", help="the C++ compiler that runs the guide's `$ c++ ...` examples")
    parser.add_argument("--cxx-id", default="GNU", help="its CMAKE_CXX_COMPILER_ID (GNU: exact output)")
    parser.add_argument("--update", action="store_true", help="rewrite expected outputs and pictures")
    args = parser.parse_args()
    guide, root = Path(args.guide).resolve(), Path(args.root).resolve()
    pages = sorted(guide.glob("*.md"))
    failures, checked, pictures_written, pictures_shown = [], 0, set(), {}

    with tempfile.TemporaryDirectory(prefix="tessel-guide-") as tmp:
        tool_dir = Path(tmp) / "bin"
        tool_dir.mkdir()
        (tool_dir / "tessel-layout").symlink_to(Path(args.tool).resolve())
        if args.cxx:
            cxx = shutil.which(args.cxx) or args.cxx  # absolute: the wrapper is `c++` itself
            wrapper = tool_dir / "c++"
            wrapper.write_text(f'#!/bin/sh\nexec "{os.path.abspath(cxx)}" "$@"\n', encoding="utf-8")
            wrapper.chmod(0o755)
        cases = compile_fail_cases(root)
        work = Path(tmp) / "guide"
        (work / "img").mkdir(parents=True)

        for page in pages:
            text = page.read_text(encoding="utf-8")
            for m in PICTURE.finditer(text):
                pictures_shown.setdefault(m.group(1), page.name)
            updated = text.split("\n")
            replacements = []  # (first line index, end index, new lines), applied bottom-up
            for block in read_blocks(page):
                if block.kind == "console":
                    try:
                        examples = console_examples(block)
                    except ValueError as e:
                        failures.append(str(e))
                        continue
                    for n, (line, command, expected) in enumerate(examples):
                        where = f"{page.name}:{line}"
                        compiler = command.startswith("c++ ")
                        if not command.startswith("tessel-layout") and not compiler:
                            failures.append(f"{where}: only tessel-layout and c++ commands run in the guide, "
                                            f"found '$ {command}'")
                            continue
                        if compiler and not args.cxx:
                            failures.append(f"{where}: '$ {command}' needs the compiler: pass --cxx")
                            continue
                        actual = normalise(run(command, tool_dir, guide if compiler else work))
                        checked += 1
                        if compiler and not args.update:
                            failures += check_compiler_example(where, command, expected, actual, cases,
                                                               args.cxx_id == "GNU")
                        elif args.update:
                            end = examples[n + 1][0] - 1 if n + 1 < len(examples) else block.line + len(block.lines)
                            replacements.append((line, end, [block.indent + a if a else a for a in actual]))
                        elif actual != normalise(expected):
                            diff = "\n".join(difflib.unified_diff(normalise(expected), actual, "page says",
                                                                  "tessel-layout prints", lineterm=""))
                            failures.append(f"{where}: the output of\n  $ {command}\ndiffers from the page:\n{diff}")
                        for svg in SVG_ARG.findall(command):
                            produced, stored = work / svg, guide / svg
                            pictures_written.add(svg)
                            if not produced.is_file():
                                failures.append(f"{where}: '$ {command}' wrote no {svg}")
                            elif args.update:
                                stored.parent.mkdir(parents=True, exist_ok=True)
                                shutil.copyfile(produced, stored)
                            elif not stored.is_file():
                                failures.append(f"{where}: {svg} is missing from docs/guide "
                                                f"(run check_guide.py --update)")
                            elif produced.read_bytes() != stored.read_bytes():
                                failures.append(f"{where}: docs/guide/{svg} differs from what\n  $ {command}\n"
                                                f"draws now (run check_guide.py --update)")
                elif block.quote:
                    source = root / block.quote
                    where = f"{page.name}:{block.line}"
                    if not source.is_file():
                        failures.append(f"{where}: the quoted file {block.quote} does not exist")
                        continue
                    want = [line.strip() for line in block.lines]
                    have = [line.strip() for line in source.read_text(encoding="utf-8").split("\n")]
                    checked += 1
                    if not any(have[i:i + len(want)] == want for i in range(len(have) - len(want) + 1)):
                        failures.append(f"{where}: this quote is no longer in {block.quote}:\n  "
                                        + "\n  ".join(want))
            if args.update and replacements:
                for first, end, new in sorted(replacements, reverse=True):
                    updated[first:end] = new  # lines first+1 .. end (1-based) are the output
                page.write_text("\n".join(updated), encoding="utf-8")

    for picture, page in sorted(pictures_shown.items()):
        if not (guide / picture).is_file():
            failures.append(f"{page}: shows {picture}, which does not exist")
        elif picture not in pictures_written:
            failures.append(f"{page}: shows {picture}, but no command of the guide draws it "
                            f"(add the tessel-layout command with --svg {picture})")
    img = guide / "img"
    for path in sorted(img.glob("*")) if img.is_dir() else []:
        name = f"img/{path.name}"
        if name not in pictures_shown:
            failures.append(f"docs/guide/{name} is shown by no page: show it or delete it")

    for failure in failures:
        print(f"FAIL {failure}\n", file=sys.stderr)
    print(f"guide: {len(pages)} pages, {checked} examples and quotes checked, "
          f"{len(pictures_written)} pictures, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
