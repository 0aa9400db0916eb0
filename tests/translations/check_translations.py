#!/usr/bin/env python3
"""Checks a Qt Linguist .ts file against the sources and itself.

Fails (exit 1), naming each entry with the .ts line and the source file:line, when
  * a tr() string of the sources is missing from the .ts (lupdate runs over the same sources as
    the update_translations target, into a temporary .ts, and the two are compared);
  * an entry is no longer in the sources, or is marked obsolete or vanished;
  * an entry is unfinished or empty;
  * the placeholders (%1 … %99, %n, %L1) of a translation differ from its source's;
  * a plural (numerus) entry lacks a form, or has an empty one;
  * a source with an & accelerator has a translation without one.

Usage: check_translations.py --ts FILE --lupdate LUPDATE --project PROJECT.cmake
         --generator GenerateLUpdateProject.cmake --cmake CMAKE --source-dir DIR
         [--options "-no-obsolete;-locations;none"]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.parsers.expat
from xml.etree import ElementTree

# Plural forms per language (Qt's numerus rules); a language not listed needs at least two.
PLURAL_FORMS = {"de": 2, "en": 2, "fr": 2, "es": 2, "it": 2, "nl": 2, "ja": 1, "zh": 1}
PLACEHOLDER = re.compile(r"%L?(\d{1,2}|n)")
ACCELERATOR = re.compile(r"(?<!&)&(?=[^&\s])")


class Message:
    def __init__(self, context, line):
        self.context = context
        self.line = line  # of <message> in the .ts
        self.source = ""
        self.comment = ""
        self.numerus = False
        self.translation_type = None
        self.translation = ""
        self.forms = []
        self.locations = []  # (file, line)

    def key(self):
        return (self.context, self.source, self.comment)

    def describe(self):
        text = self.source if len(self.source) <= 70 else self.source[:67] + "..."
        comment = f" ({self.comment})" if self.comment else ""
        return f"[{self.context}] {json.dumps(text, ensure_ascii=False)}{comment}"


def message_lines(path):
    """The line of every <message> start tag, in document order."""
    lines = []
    parser = xml.parsers.expat.ParserCreate()

    def start(name, _attrs):
        if name == "message":
            lines.append(parser.CurrentLineNumber)

    parser.StartElementHandler = start
    with open(path, "rb") as f:
        parser.ParseFile(f)
    return lines


def parse_ts(path):
    """The language and the messages of a .ts file, with the line of each and its locations."""
    root = ElementTree.parse(path).getroot()
    lines = iter(message_lines(path))
    messages = []
    for context in root.iter("context"):
        name = context.findtext("name") or ""
        for element in context.findall("message"):
            m = Message(name, next(lines))
            m.numerus = element.get("numerus") == "yes"
            m.source = element.findtext("source") or ""
            m.comment = element.findtext("comment") or ""
            translation = element.find("translation")
            if translation is not None:
                m.translation_type = translation.get("type")
                m.forms = [f.text or "" for f in translation.findall("numerusform")]
                m.translation = "" if m.numerus else (translation.text or "")
            file = ""
            for location in element.findall("location"):
                # lupdate leaves out the file name when it is the previous location's.
                file = location.get("filename", file)
                m.locations.append((file, int(location.get("line") or 0)))
            messages.append(m)
    return root.get("language", ""), messages


def placeholders(text):
    return sorted(set(m.group(1) for m in PLACEHOLDER.finditer(text)))


def fresh_scan(args, workdir):
    """lupdate over the update_translations target's sources into a new .ts (with locations)."""
    project = os.path.join(workdir, "project.json")
    subprocess.run([args.cmake, f"-DIN_FILE={args.project}", f"-DOUT_FILE={project}",
                    "-P", args.generator], check=True)
    ts = os.path.join(workdir, os.path.basename(args.ts))
    options = [o for o in args.options.split(";") if o]
    # The same options as the target, but with line numbers, to say where a string is.
    if "-locations" in options:
        i = options.index("-locations")
        del options[i:i + 2]
    result = subprocess.run([args.lupdate, "-project", project, "-ts", ts, *options,
                             "-locations", "absolute", "-silent"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"lupdate failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    _, messages = parse_ts(ts)
    # Locations are relative to the .ts written: make them relative to the source folder.
    for m in messages:
        m.locations = [(os.path.relpath(os.path.normpath(os.path.join(workdir, f)),
                                        args.source_dir), line) for f, line in m.locations]
    return messages


def main():
    ap = argparse.ArgumentParser()
    for name in ("ts", "lupdate", "project", "generator", "cmake", "source_dir"):
        ap.add_argument("--" + name.replace("_", "-"), required=True)
    ap.add_argument("--options", default="-no-obsolete")
    args = ap.parse_args()

    language, committed = parse_ts(args.ts)
    with tempfile.TemporaryDirectory() as workdir:
        fresh = fresh_scan(args, workdir)
    fresh_by_key = {m.key(): m for m in fresh}
    committed_keys = {m.key() for m in committed}
    ts_name = os.path.relpath(args.ts, args.source_dir)
    nforms = PLURAL_FORMS.get(language.split("_")[0], 2)
    problems = []

    def where(m):
        f = fresh_by_key.get(m.key())
        return ", ".join(f"{file}:{line}" for file, line in f.locations) if f else "?"

    def report(m, what, in_ts=True):
        line = f"{ts_name}:{m.line}: " if in_ts else f"{where(m)}: "
        tail = f" (in {where(m)})" if in_ts and m.key() in fresh_by_key else ""
        problems.append(f"{line}{what}: {m.describe()}{tail}")

    for m in fresh:
        if m.key() not in committed_keys:
            report(m, "not in the .ts (a new string: refresh and translate it)", in_ts=False)

    for m in committed:
        f = fresh_by_key.get(m.key())
        if m.translation_type in ("obsolete", "vanished"):
            report(m, f"{m.translation_type} entry (drop it: refresh the .ts)")
            continue
        if f is None:
            report(m, "no longer in the sources (drop it: refresh the .ts)")
            continue
        if f.numerus != m.numerus:
            report(m, "plural form mismatch with the sources (refresh the .ts)")
        if m.translation_type == "unfinished":
            report(m, "unfinished")
            continue
        texts = m.forms if m.numerus else [m.translation]
        if m.numerus and len(m.forms) != nforms:
            report(m, f"has {len(m.forms)} plural forms, {language} needs {nforms}")
        if any(not t.strip() for t in texts) or not texts:
            report(m, "empty translation")
            continue
        want = placeholders(m.source)
        for i, t in enumerate(texts):
            got = placeholders(t)
            if got != want:
                form = f" (plural form {i + 1})" if m.numerus else ""
                report(m, f"placeholders {got} in the translation{form}, {want} in the source")
            if ACCELERATOR.search(m.source) and not ACCELERATOR.search(t):
                report(m, f"the source has an & accelerator, the translation "
                          f"{json.dumps(t, ensure_ascii=False)} has none")

    if problems:
        print(f"{len(problems)} problem(s) with {ts_name}:")
        for p in problems:
            print("  " + p)
        print("Refresh the .ts with `cmake --build BUILD --target update_translations`, then "
              "translate the new entries (linguist-qt6) and remove type=\"unfinished\".")
        return 1
    print(f"{ts_name}: {len(committed)} entries, all translated and current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
