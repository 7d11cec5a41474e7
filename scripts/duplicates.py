#!/usr/bin/env python3
"""Counts repeated code in the Rust sources: pairs of places sharing at least MIN
consecutive code lines that are identical or of the same shape.

A "code line" is a source line with comments, blank lines, attributes, `use`/`mod`
declarations and lines of closing brackets alone removed, and surrounding whitespace
trimmed. Two lines have the same shape when they are equal after every number and string
literal is replaced by a placeholder (`--identifiers` also replaces every identifier that
is not a keyword: a looser measure that counts code differing only in names). A pair of
places is one maximal run of such lines found at two places (in one file or two; runs
within one file may not overlap). Files marked `@generated` are skipped.

Usage: python3 scripts/duplicates.py [ROOT] [--min 6] [--identifiers] [--list]
(`--identifiers` counts each pattern's places once per pair as well, so a pattern that
recurs k times counts k(k−1)/2: use it to find candidates, not as a total.)
"""
import argparse
import os
import re
from collections import defaultdict

KEYWORDS = set("""as async await break const continue crate dyn else enum extern false fn for if
impl in let loop match mod move mut pub ref return self Self static struct super trait true type
unsafe use where while u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize bool str String Vec
Option Some None Ok Err Result""".split())


def shape(line, identifiers):
    s = re.sub(r'"(?:[^"\\]|\\.)*"', 'S', line)
    s = re.sub(r"\b0x[0-9a-fA-F_]+\b|\b\d[\d_]*(?:\.\d+)?\w*\b", 'N', s)
    if identifiers:
        s = re.sub(r"\b[A-Za-z_][A-Za-z0-9_]*\b",
                   lambda m: m.group(0) if m.group(0) in KEYWORDS else 'I', s)
    return s


def code_lines(path, identifiers):
    out, in_block = [], False
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    if '@generated' in text[:400]:
        return []
    for number, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if in_block:
            in_block = '*/' not in s
            continue
        if s.startswith('/*'):
            in_block = '*/' not in s
            continue
        if (not s or s.startswith('//') or s.startswith('#[') or s.startswith('#![')
                or re.fullmatch(r"[\]\)\}\{;,\s]*", s)
                or re.match(r'(pub(\(crate\))? )?(use|mod) ', s)):
            continue
        out.append((number, shape(s, identifiers)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('root', nargs='?', default='crates')
    ap.add_argument('--min', type=int, default=6)
    ap.add_argument('--identifiers', action='store_true')
    ap.add_argument('--list', action='store_true')
    a = ap.parse_args()
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(a.root)
                   if '/target' not in d for f in fs if f.endswith('.rs'))
    lines = {f: code_lines(f, a.identifiers) for f in files}
    windows = defaultdict(list)
    for f, seq in lines.items():
        for k in range(len(seq) - a.min + 1):
            windows[tuple(x[1] for x in seq[k:k + a.min])].append((f, k))
    pairs = set()
    for places in windows.values():
        for i, p in enumerate(places):
            for q in places[i + 1:]:
                if p[0] == q[0] and abs(p[1] - q[1]) < a.min:
                    continue
                pairs.add(p + q if p < q else q + p)
    runs = []
    for (f1, k1, f2, k2) in sorted(pairs):
        if (f1, k1 - 1, f2, k2 - 1) in pairs:
            continue
        n = 0
        while (f1, k1 + n, f2, k2 + n) in pairs:
            n += 1
        runs.append((n + a.min - 1, f1, lines[f1][k1][0], f2, lines[f2][k2][0]))
    if a.list:
        for n, f1, l1, f2, l2 in runs:
            print(f"{n:4d} lines  {f1}:{l1}  {f2}:{l2}")
    kind = "same-shape (names abstracted)" if a.identifiers else "identical or same-shape"
    print(f"{len(runs)} pairs of places sharing >= {a.min} {kind} lines")


main()
