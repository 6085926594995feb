#!/usr/bin/env python3
"""Creation and update through the mount against a floor that commits as durably (docs/spec.md §7), and the
cost of the durability, in one run, interleaved (A B A B …):

- keychainfs: `mkitems` (mkdir, write, close: one SecItemAdd) and rewrites of a value (open O_TRUNC, write,
  close: one SecItemUpdate), on a vault as shipped (synchronous = FULL) and on one whose daemon runs
  `synchronous = NORMAL` (KEYCHAINFS_TEST_DISABLE_GUARDS=durability, a test device's switch);
- the floor: `durablefloor`, the same inserts and updates in C on SQLite WAL, one transaction each, FULL and NORMAL.

  bench/durability.py --keychainfs BINARY --tools DIR [--rounds 5] [--items 20] [--results DIR]
"""
import argparse, json, os, shutil, statistics, subprocess, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--keychainfs", required=True)
ap.add_argument("--tools", required=True, help="built mkitems and durablefloor")
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--items", type=int, default=20, help="items per sample")
ap.add_argument("--results", default=None)
args = ap.parse_args()
KC = os.path.abspath(args.keychainfs)
T = lambda name: os.path.join(os.path.abspath(args.tools), name)
# On the disk (not /dev/shm): an fsync must reach a device for the figures to mean anything.
WORK = tempfile.mkdtemp(prefix="kcfs-durability-", dir="/var/tmp")
mounts = []


def sh(cmd, env=None):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout.strip()


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": len(values)}


def mounted(name, durability_off):
    vault, mnt = f"{WORK}/{name}/vault", f"{WORK}/{name}/mnt"
    env = dict(os.environ, XDG_STATE_HOME=f"{WORK}/state")
    sh([KC, "init", vault, "--test-device"], env)
    if durability_off: env["KEYCHAINFS_TEST_DISABLE_GUARDS"] = "durability"
    sh([KC, "mount", vault, mnt], env)
    mounts.append(mnt)
    return mnt


def rewrite(mnt, prefix):
    """ms per rewrite of the values of the `args.items` items made with `prefix`."""
    start = time.perf_counter()
    for a in range(args.items):
        fd = os.open(f"{mnt}/genp/svc0/{prefix}{a}/value", os.O_WRONLY | os.O_TRUNC)
        os.write(fd, b"rewritten-secret")
        os.close(fd)
    return (time.perf_counter() - start) * 1000 / args.items


try:
    full, normal = mounted("full", False), mounted("normal", True)
    samples = {k: [] for k in ["create FULL", "create NORMAL", "update FULL", "update NORMAL",
                               "floor insert FULL", "floor insert NORMAL", "floor update FULL", "floor update NORMAL"]}
    for r in range(args.rounds):
        for label, mnt in (("FULL", full), ("NORMAL", normal)):
            start = time.perf_counter()
            sh([T("mkitems"), mnt, "1", str(args.items), f"r{r}-"])
            samples[f"create {label}"].append((time.perf_counter() - start) * 1000 / args.items)
            samples[f"update {label}"].append(rewrite(mnt, f"r{r}-"))
            insert, update = map(float, sh([T("durablefloor"), WORK, str(args.items), label.lower()]).split())
            samples[f"floor insert {label}"].append(insert)
            samples[f"floor update {label}"].append(update)
    results = {k: summary(v) for k, v in samples.items()}
    print(f"{'ms per item':22} {'median':>8}  (min–max), {args.rounds} rounds of {args.items}")
    for k, v in results.items():
        print(f"{k:22} {v['median']:8.3f}  ({v['min']:.3f}–{v['max']:.3f})")
    m = lambda k: results[k]["median"]
    ratios = {
        "creation rate, × the durable floor's": m("floor insert FULL") / m("create FULL"),
        "update rate, × the durable floor's": m("floor update FULL") / m("update FULL"),
        "durability's cost, creation (FULL / NORMAL)": m("create FULL") / m("create NORMAL"),
        "durability's cost, update (FULL / NORMAL)": m("update FULL") / m("update NORMAL"),
        "durability's cost in the floor, insert (FULL / NORMAL)": m("floor insert FULL") / m("floor insert NORMAL"),
    }
    for k, v in ratios.items():
        print(f"{k:56} {v:6.2f}")
    met = ratios["creation rate, × the durable floor's"] >= 0.5
    print(f"target: creation through the mount at least half the durable floor's rate: {'met' if met else 'not met'}")
    if args.results:
        with open(f"{args.results}/durability.json", "w") as out:
            json.dump({"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "binary": KC,
                       "results": results, "ratios": ratios, "target_met": met}, out, indent=2)
finally:
    for mnt in reversed(mounts):
        subprocess.run([KC, "unmount", mnt], capture_output=True)
    shutil.rmtree(WORK, ignore_errors=True)
