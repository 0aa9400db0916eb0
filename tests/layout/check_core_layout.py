#!/usr/bin/env python3
"""Keeps core/'s layout true to core/README.md: every include points down the README's table
of folders, no source file stands at core/'s top level, and no ui/ header shadows a core header
of the same path (both folders are include roots). Exit status 1 names each violation."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2])
core = root / "core"

# The table's rows: | `folder` | `a`, `b` |  (— for none)
row = re.compile(r"^\|\s*`([a-z0-9]+)`\s*\|(.*)\|\s*$")
allowed = {}
for line in (core / "README.md").read_text().splitlines():
    m = row.match(line)
    if m:
        allowed[m.group(1)] = set(re.findall(r"`([a-z0-9]+)`", m.group(2)))
if not allowed:
    sys.exit("check_core_layout: no folder table found in core/README.md")

problems = []
for path in sorted(core.iterdir()):
    if path.is_file() and path.suffix in (".cpp", ".h", ".c"):
        problems.append(f"{path.relative_to(root)}: a source file at core/'s top level")
    if path.is_dir() and path.name not in allowed and path.name != "generator":
        problems.append(f"{path.relative_to(root)}: a folder core/README.md does not list")

include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
for path in sorted(core.rglob("*")):
    if path.suffix not in (".cpp", ".h") or path.parent.name not in allowed:
        continue
    here = path.parent.name
    for number, line in enumerate(path.read_text().splitlines(), 1):
        m = include.match(line)
        if not m:
            continue
        target = m.group(1)
        where = f"{path.relative_to(root)}:{number}"
        if "/" not in target:
            if (core / here / target).exists() or any(core.glob(f"*/{target}")):
                problems.append(f"{where}: #include \"{target}\" does not name its folder")
            continue
        folder = target.split("/", 1)[0]
        if folder == here or folder not in allowed:
            continue
        if folder not in allowed[here]:
            problems.append(f"{where}: {here}/ includes {target}, a folder above it "
                            f"({here}/ may include: {', '.join(sorted(allowed[here])) or 'nothing'})")

for header in sorted((root / "ui").rglob("*.h")):
    twin = core / header.relative_to(root / "ui")
    if twin.exists():
        problems.append(f"{header.relative_to(root)} shadows {twin.relative_to(root)}")

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
