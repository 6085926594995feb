#!/usr/bin/env python3
"""Sets each engine call of bench/engine (ENGINE: its console table, columns name, median, p99, iterations)
against the same operation of bench/tools/enginefloor (FLOOR: its table), measured in the same run.
Prints the table bench/run stores as bench/results/engine-floor.txt (report.py puts it in BENCHMARKS.md).
  floor.py ENGINE FLOOR"""
import re, sys

# Which floor operation each engine call is set against (the engine's calls not named here have none).
FLOOR_OF = {
    "add (new item)": "add",
    "copyMatching by primary key, r_Data": "copyMatching",
    "copyMatching by primary key, r_Data, first after a change": "copyMatching",
    "update v_Data by primary key": "update",
    "delete by primary key": "delete",
    "Security: SecItemAdd (new item)": "add",
    "Security: SecItemCopyMatching by primary key, kSecReturnData": "copyMatching",
    "Security: SecItemUpdate kSecValueData by primary key": "update",
    "Security: SecItemDelete by primary key": "delete",
}
UNITS = {"ns": 1e-3, "us": 1, "µs": 1, "ms": 1e3, "s": 1e6}


def engine_rows(text):
    """name → (median µs, p99 µs) from swift-benchmark's console table."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^(.*?)\s{2,}([\d.]+) (ns|us|µs|ms|s)\s+([\d.]+) (ns|us|µs|ms|s)\s+\d+\s*$", line)
        if m:
            rows[m.group(1).strip()] = (float(m.group(2)) * UNITS[m.group(3)], float(m.group(4)) * UNITS[m.group(5)])
    return rows


def floor_rows(text):
    rows = {}
    for line in text.splitlines()[1:]:
        parts = line.split()
        if len(parts) == 4:
            rows[parts[0]] = (float(parts[1]), float(parts[2]))
    return rows


def main():
    engine, floor = engine_rows(open(sys.argv[1]).read()), floor_rows(open(sys.argv[2]).read())
    if not floor:
        sys.exit("floor.py: no floor figures")
    width = max(len(n) for n in FLOOR_OF)
    print(f"{'call':<{width}}  {'median µs':>10}  {'p99 µs':>10}  {'floor median':>12}  {'floor p99':>10}  {'× floor':>8}  {'p99/median':>10}")
    for name, operation in FLOOR_OF.items():
        if name not in engine or operation not in floor:
            continue
        (median, p99), (floor_median, floor_p99) = engine[name], floor[operation]
        print(f"{name:<{width}}  {median:>10.1f}  {p99:>10.1f}  {floor_median:>12.1f}  {floor_p99:>10.1f}  {median / floor_median:>7.1f}×  {p99 / median:>9.1f}×")


main()
