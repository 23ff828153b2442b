#!/usr/bin/env python3
"""Formatter property test on random long expressions (seeded, so reproducible).

For each generated program (records, calls, tuples, conditionals, unary minus and
binary operators of every precedence, nested deeply enough to need several lines):
`mdhc fmt` succeeds, its output formats to itself, parses to the same AST dump as
the input (`--emit=ast`), and has no line longer than 100 columns.
Usage: fmt_random_expressions.py MDHC [COUNT]
"""
import os
import random
import subprocess
import sys
import tempfile

NAMES = ['a', 'bb', 'ccc_long_name_here', 'd', 'eeeeeeeeeeeeeeeeee']
OPS = ['+', '-', '*', '/', '<', '>', '==', '&&', '||', '%', '<=']
PARAMS = ', '.join(f'{n}: f32' for n in NAMES)


def expr(rng, depth):
    r = rng.random()
    if depth > 5 or r < 0.2:
        return rng.choice(NAMES + ['1.0', '2', '3.5e2'])
    if r < 0.55:
        return f'({expr(rng, depth + 1)} {rng.choice(OPS)} {expr(rng, depth + 1)})'
    if r < 0.65:
        return f'({expr(rng, depth + 1)} ? {expr(rng, depth + 1)} : {expr(rng, depth + 1)})'
    if r < 0.75:
        return f'fma({expr(rng, depth + 1)}, {expr(rng, depth + 1)}, {expr(rng, depth + 1)})'
    if r < 0.85:
        return f'({expr(rng, depth + 1)}, {expr(rng, depth + 1)})'
    if r < 0.9:
        return f'-{expr(rng, depth + 1)}'
    return f'P {{ x: {expr(rng, depth + 1)}, y: {expr(rng, depth + 1)} }}'


def program(seed):
    rng = random.Random(seed)
    out = ['record P { x: f32, y: f32 }']
    for i in range(8):
        if rng.random() < 0.5:
            out.append(f'fn f{i}({PARAMS}) -> f32 = {expr(rng, 0)};')
        else:
            out.append(f'fn f{i}({PARAMS}) -> f32 {{\n  let t = {expr(rng, 0)};\n'
                       f'  if ({expr(rng, 1)}) {{ return {expr(rng, 1)}; }}\n  return t;\n}}')
    return '\n'.join(out) + '\n'


def run(mdhc, *args):
    return subprocess.run([mdhc, *args], capture_output=True, text=True, timeout=60)


def main():
    mdhc = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        src, formatted = os.path.join(tmp, 'p.mdh'), os.path.join(tmp, 'q.mdh')
        for seed in range(count):
            with open(src, 'w') as f:
                f.write(program(seed))
            first = run(mdhc, 'fmt', src)
            problem = None
            if first.returncode != 0:
                problem = 'fmt failed: ' + first.stderr[:500]
            else:
                with open(formatted, 'w') as f:
                    f.write(first.stdout)
                long_lines = [l for l in first.stdout.splitlines() if len(l) > 100]
                if run(mdhc, 'fmt', formatted).stdout != first.stdout:
                    problem = 'not idempotent'
                elif run(mdhc, '--emit=ast', src).stdout != run(mdhc, '--emit=ast', formatted).stdout:
                    problem = 'the formatted program has another AST'
                elif long_lines:
                    problem = f'{len(long_lines)} lines over 100 columns, e.g. {long_lines[0]!r}'
            if problem:
                failures += 1
                print(f'seed {seed}: {problem}\n--- input\n{program(seed)}--- output\n{first.stdout}')
    print(f'{count} random programs, {failures} failing')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
