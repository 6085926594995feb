#!/usr/bin/env python3
"""Sets each engine call of bench/engine against the same operation of bench/tools/enginefloor, round by
round: ENGINE_1 FLOOR_1 [ENGINE_2 FLOOR_2 ...] are the rounds' tables (the engine's console table, columns
name, median, p99, iterations; the floor's table), each pair measured one after the other.
Prints, per call, the median over the rounds of its median, p99 and the floor's, and of its ratio to the
floor (the ratio is worked out within each round, then the median taken), with the rounds' range of ratios.
bench/engine-floor stores it as bench/results/engine-floor.txt (report.py puts it in BENCHMARKS.md).
  floor.py ENGINE FLOOR [ENGINE FLOOR ...]"""
import re, statistics, sys

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
    paths = sys.argv[1:]
    if not paths or len(paths) % 2:
        sys.exit("usage: floor.py ENGINE FLOOR [ENGINE FLOOR ...]")
    rounds = [(engine_rows(open(e).read()), floor_rows(open(f).read())) for e, f in zip(paths[::2], paths[1::2])]
    if not all(floor for _, floor in rounds):
        sys.exit("floor.py: a round has no floor figures")
    width = max(len(n) for n in FLOOR_OF)
    print(f"{len(rounds)} round(s), each the engine's calls then the floor's; every figure the median over the rounds")
    print(f"{'call':<{width}}  {'median µs':>10}  {'p99 µs':>10}  {'floor median':>12}  {'floor p99':>10}  {'× floor':>8}  {'rounds':>11}  {'p99/median':>10}")
    for name, operation in FLOOR_OF.items():
        present = [(engine[name], floor[operation]) for engine, floor in rounds if name in engine and operation in floor]
        if not present:
            continue
        med = lambda values: statistics.median(values)
        median, p99 = med([e[0] for e, _ in present]), med([e[1] for e, _ in present])
        floor_median, floor_p99 = med([f[0] for _, f in present]), med([f[1] for _, f in present])
        ratios = [e[0] / f[0] for e, f in present]
        spread = f"{min(ratios):.1f}–{max(ratios):.1f}"
        print(f"{name:<{width}}  {median:>10.1f}  {p99:>10.1f}  {floor_median:>12.1f}  {floor_p99:>10.1f}  {med(ratios):>7.1f}×  {spread:>11}  {med([e[1] / e[0] for e, _ in present]):>9.1f}×")


main()
