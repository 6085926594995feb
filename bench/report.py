#!/usr/bin/env python3
"""Writes BENCHMARKS.md from bench/results/latest.json (bench/run calls it after every run)."""
import json, sys

results_dir, out = sys.argv[1], sys.argv[2]
r = json.load(open(f"{results_dir}/latest.json"))
res = r["results"]
loop, cat, create = res["read_loop"], res["cat"], res["create"]
m = lambda d: d["median"]
def anchors(figures, ours, higher_is_better):
    """Each anchor's figure and keychainfs's factor against it (above 1: keychainfs is better)."""
    mine = m(figures[ours])
    return ", ".join(f"{name} {m(v):.{0 if higher_is_better else 2}f} ({(mine / m(v)) if higher_is_better else (m(v) / mine):.2f}×)"
                     for name, v in figures.items() if name != ours)


here = sys.path[0]
# The prose lives beside this script: method.md (how), findings.md (why targets are met or missed).
HEAD = open(f"{here}/method.md").read()
PROSE = open(f"{here}/findings.md").read()
try:
    ENGINE = open(f"{results_dir}/engine.txt").read()
    ENGINE = ENGINE[ENGINE.index("name "):].rstrip()  # the table, without the progress lines
except (OSError, ValueError):
    ENGINE = None
try:
    FLOOR = open(f"{results_dir}/engine-floor.txt").read().rstrip()  # bench/floor.py's table
except OSError:
    FLOOR = None
lines = [HEAD.rstrip(), "", "## Latest run", "",
         f"{r['machine']}, {r['cpus']} cores, {r['when']}. Full figures: `bench/results/latest.json`. Load average "
         "(1 min) as each section started: " + ", ".join(f"{title.split('. ')[0]}: {load[0]:.2f}" for title, load in res.get("load", {}).items()) + ".", "",
         "| figure | keychainfs | anchors (keychainfs's factor: above 1, keychainfs is better) |", "|---|---|---|",
         f"| open+read+close, ops/s, gatekeeper path | {m(loop['keychainfs']):.0f} | {anchors(loop, 'keychainfs', True)} |",
         f"| open+read+close, ops/s, `--kernel-cache` | {m(loop['keychainfs --kernel-cache']):.0f} | {anchors(loop, 'keychainfs --kernel-cache', True)} |",
         f"| `cat` of a secret, ms | {m(cat['keychainfs (cat value)']):.2f} | {anchors(cat, 'keychainfs (cat value)', False)} |",
         f"| creating an item, ms | {m(create['keychainfs']):.2f} | {anchors(create, 'keychainfs', False)} |",
         f"| getxattr / listxattr, ops/s | {m(res['xattr']['getxattr']):.0f} / {m(res['xattr']['listxattr']):.0f} | |",
         f"| lock in force, ms | {m(res['lock_ms']):.1f} from the CLI's start, {m(res['lock_socket_ms']):.2f} from the request | |",
         f"| unlock, ms | {m(res['unlock_ms']):.0f} | (Argon2id MODERATE) |"]
for count, e in sorted(res["scale"].items(), key=lambda kv: int(kv[0])):
    extra = ""
    if "ls_10000_s" in e:
        extra = f"; `ls` of 10,000 accounts {m(e['ls_10000_s']):.2f} s; find\\|xargs cat of 10,000 items {e['find_xargs_cat_10000_s']:.1f} s"
    if "ls_100000_s" in e:
        extra += f"; `ls` of 100,000 accounts {m(e['ls_100000_s']):.2f} s"
    if "rss_after_ls_kib" in e:
        extra += f" (RSS after it {e['rss_after_ls_kib'] / 1024:.0f} MiB)"
    ten = m(res["scale"]["10"]["random_reads"]) if "10" in res["scale"] else m(e["random_reads"])
    lines.append(f"| {int(count):,} items | {m(e['random_reads']):.0f} random reads/s ({m(e['random_reads']) / ten:.2f}× the 10-item rate); RSS {e['rss_kib'] / 1024:.0f} MiB; "
                 f"mount→first read {e['mount_to_first_read_s']:.2f} s{extra} | created at {int(count) / e['create_s']:.0f} items/s "
                 f"({'through the engine, BuildVault' if e.get('built_through') == 'engine' else 'through the mount'}) |")
lines += ["", "![random reads against item count](BENCHMARKS-reads-vs-items.png)", "", "### Targets (docs/spec.md §7)", "",
          "| figure | measured | target | met |", "|---|---|---|---|"]
lines += [f"| {t['figure']} | {t['value']:.2f} | {t['target']} | {'yes' if t['met'] else 'no'} |" for t in res["targets"]]
if ENGINE:
    lines += ["", "### Engine micro-benchmarks (bench/engine: one SecItem call on a vault of 1,000 items, no FUSE)", "", "```", ENGINE, "```"]
if FLOOR:
    lines += ["", "### The engine's calls against their floor (bench/tools/enginefloor.c, same run; target ≤ 3× median, p99 ≤ 10× median)",
              "", "```", FLOOR, "```"]
try:
    DURABILITY = open(f"{results_dir}/durability.txt").read().rstrip()  # bench/durability.py's table
except OSError:
    DURABILITY = None
if DURABILITY:
    lines += ["", "### Durability: creation and update against a floor that commits as durably (bench/durability.py, same run)",
              "", "```", DURABILITY, "```"]
lines += ["", PROSE.rstrip(), ""]
open(out, "w").write("\n".join(lines))
