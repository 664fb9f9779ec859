#!/usr/bin/env python3
"""Checks generated modules against docs/cap-contract.md.

Usage: cap_contract_check.py CONTRACT.md PATH...   (files or directories of .gleam)

The contract's tables list, in their first column, every import line and
every qualified name (`alias.name`) a generated module may use. Each module
is read with its comments and string literals removed; every `import` line
and every `alias.name` reference must be in those lists. Prints each
undocumented use as `file:line: name` and exits 1 if there is one; exits 0
and prints a one-line count otherwise. It also fails when it finds no
module at all, so a wrong path cannot pass.
"""
import os
import re
import sys

FIRST_CELL = re.compile(r"^\|\s*`([^`]+)`\s*\|")
STRING = re.compile(r'"(?:\\.|[^"\\])*"')
QUALIFIED = re.compile(r"\b([a-z_][a-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)")


def documented(contract_path):
    imports, names = set(), set()
    with open(contract_path, encoding="utf-8") as contract:
        for line in contract:
            match = FIRST_CELL.match(line)
            if not match:
                continue
            cell = match.group(1)
            if cell.startswith("import "):
                imports.add(cell)
            elif QUALIFIED.fullmatch(cell):
                names.add(cell)
    if not imports or not names:
        sys.exit(f"cap-contract: {contract_path} lists no imports or no names")
    return imports, names


def modules(paths):
    for path in paths:
        if os.path.isdir(path):
            for directory, _, files in sorted(os.walk(path)):
                for name in sorted(files):
                    if name.endswith(".gleam"):
                        yield os.path.join(directory, name)
        else:
            yield path


def code_lines(path):
    """Each line with its string literals blanked and comments dropped."""
    with open(path, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            code = STRING.sub('""', line)
            code = code.split("//", 1)[0].rstrip()
            if code:
                yield number, code


def check(contract_path, paths):
    imports, names = documented(contract_path)
    undocumented, count = [], 0
    for path in modules(paths):
        count += 1
        for number, code in code_lines(path):
            if code.startswith("import "):
                if code not in imports:
                    undocumented.append(f"{path}:{number}: {code}")
                continue
            for alias, name in QUALIFIED.findall(code):
                reference = f"{alias}.{name}"
                if reference not in names:
                    undocumented.append(f"{path}:{number}: {reference}")
    return count, undocumented


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    count, undocumented = check(argv[1], argv[2:])
    if count == 0:
        sys.exit("cap-contract: no generated module found in " + " ".join(argv[2:]))
    if undocumented:
        print(f"cap-contract: {len(undocumented)} use(s) not in {argv[1]}:", file=sys.stderr)
        for line in undocumented:
            print("  " + line, file=sys.stderr)
        sys.exit(1)
    print(f"cap-contract: {count} generated modules use only what {argv[1]} lists")


if __name__ == "__main__":
    main(sys.argv)
