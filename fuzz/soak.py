#!/usr/bin/env python3
"""Many-process soak (docs/spec.md §8 "Concurrency"): 8 processes × N mixed operations on overlapping items of a real
mount, and a ninth locking and unlocking the device, every operation under a deadline.

Checked afterwards from every process's timed log: 0 unexpected errors (only EACCES on WhenUnlocked items
while locked, ENOENT/EEXIST on the items processes create, delete and rename among themselves), 0 lost
updates (a read gives the last write that ended before it began, or one that overlapped it, never an older
one), 0 torn values (every value read is one write whole), 0 secrets read inside a locked window (fresh
opens and O_RDWR/O_RDONLY fds held across the lock), 0 hangs, 0 daemon crashes.
Exit status 1 on any violation: `soak.py --seed N --ops M` replays the schedule's choices (not its timing).
"""
import argparse
import collections
import errno
import hashlib
import multiprocessing
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kcfs_mount import Deadlines, Hang, Mount  # noqa: E402

PASSCODE = "1357"
SHARED = 10           # items every process reads and rewrites; even ones WhenUnlocked, odd ones AfterFirstUnlock
EXPECTED_EACCES = "EACCES on a WhenUnlocked item while locked"


def value_for(writer, seq, rng):
    """A value that says who wrote it and proves it is whole: header, then a digest of the header repeated."""
    header = b"%d:%d:" % (writer, seq)
    return header + hashlib.sha256(header).digest() * rng.randint(1, 40)


def parse_value(data):
    """(writer, seq) of a whole value, or None if it is torn or foreign."""
    parts = data.split(b":", 2)
    if len(parts) != 3:
        return None
    header = parts[0] + b":" + parts[1] + b":"
    digest = hashlib.sha256(header).digest()
    body = parts[2]
    if not body or len(body) % 32 or body != digest * (len(body) // 32):
        return None
    return int(parts[0]), int(parts[1])


def shared_path(mount, index):
    return f"{mount}/genp/soak/item{index}"


def worker(number, mount_path, connection, ops, seed, deadline, out):
    rng = random.Random(seed * 100 + number)

    class MountRef:  # what Deadlines needs to abort the connection from this process
        def abort_connection(self):
            try:
                with open(f"/sys/fs/fuse/connections/{connection}/abort", "w") as abort:
                    abort.write("1")
            except OSError:
                pass

    d = Deadlines(MountRef(), deadline)
    log, errors = [], collections.Counter()
    own = {}  # own item name -> exists
    held = []
    seq = 0

    def timed(kind, item, fn, *args):
        start = time.monotonic()
        try:
            result = d.call(fn, *args)
            log.append((kind, item, start, time.monotonic(), "ok", result))
            return True, result
        except OSError as error:
            log.append((kind, item, start, time.monotonic(), errno.errorcode.get(error.errno, str(error.errno)), None))
            return False, error.errno

    def write(path, data):
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def read(path):
        fd = os.open(path, os.O_RDONLY)
        try:
            return os.read(fd, 1 << 20)
        finally:
            os.close(fd)

    try:
        for _ in range(ops):
            roll = rng.random()
            index = rng.randrange(SHARED)
            path = shared_path(mount_path, index)
            if roll < 0.35:
                timed("read", index, read, path + "/value")
            elif roll < 0.60:
                seq += 1
                data = value_for(number, seq, rng)
                timed("write", index, write, path + "/value", data)
                log[-1] = log[-1][:5] + ((number, seq),)
            elif roll < 0.68:
                label = b"w%d-%d" % (number, rng.randrange(1000))
                timed("setxattr", index, os.setxattr, path, "user.kSecAttrLabel", label)
            elif roll < 0.74:
                timed("getxattr", index, os.getxattr, path, "user.kSecAttrLabel")
            elif roll < 0.86:
                name = rng.randrange(4)
                p = f"{mount_path}/genp/soak-w{number}/own{name}"
                if own.get(name):
                    if rng.random() < 0.5:
                        ok, _ = timed("own-delete", name, os.rmdir, p)
                        own[name] = not ok and own[name]
                    else:
                        other = rng.randrange(4)
                        ok, _ = timed("own-rename", name, os.rename, p, f"{mount_path}/genp/soak-w{number}/own{other}")
                        if ok and other != name:
                            own[name], own[other] = False, True
                else:
                    ok, _ = timed("own-create", name, os.mkdir, p)
                    own[name] = ok or own.get(name, False)
            elif roll < 0.93:
                if len(held) < 4:
                    flags = rng.choice([os.O_RDONLY, os.O_RDWR])
                    ok, fd = timed("hold", index, os.open, path + "/value", flags)
                    if ok:
                        held.append((fd, index, time.monotonic()))
                else:
                    fd, idx, _ = held.pop(rng.randrange(len(held)))
                    timed("release", idx, os.close, fd)
            else:
                if held:
                    fd, idx, opened = rng.choice(held)
                    timed("held-read", idx, os.pread, fd, 1 << 20, 0)
                    log[-1] = log[-1] + (opened,)
    except Hang as hang:
        errors["hang"] += 1
        log.append(("hang", None, time.monotonic(), time.monotonic(), str(hang), None))
    for fd, *_ in held:
        try:
            os.close(fd)
        except OSError:
            pass
    out.put((number, log))


def locker(mount, stop_at, out):
    """The ninth process: lock and unlock until the workers are done; logs each locked window."""
    rng = random.Random(7)
    windows = []
    while time.monotonic() < stop_at.value:
        time.sleep(rng.uniform(0.02, 0.15))
        lock_started = time.monotonic()
        mount.device("lock")
        locked_from = time.monotonic()
        time.sleep(rng.uniform(0.02, 0.15))
        unlock_started = time.monotonic()
        mount.device("unlock", passcode=PASSCODE)
        # certainly locked between the lock's return and the unlock's start; maybe locked around that
        windows.append((locked_from, unlock_started, lock_started, time.monotonic()))
    out.put(("locker", windows))


def check(logs, windows, initial):
    """Every violation found in the merged logs, and counters for the report."""
    violations, counts = [], collections.Counter()
    writes = collections.defaultdict(list)  # item -> [(start, end, id, committed)]
    for item, ident in initial.items():
        writes[item].append((0.0, 0.0, ident, True))
    for _, log in logs:
        for kind, item, start, end, outcome, result, *_ in log:
            if kind == "write":
                writes[item].append((start, end, result, outcome == "ok"))

    def in_lock(start, end):
        return any(lo <= start and end <= hi for lo, hi, _, _ in windows)

    def maybe_locked(start, end):
        return any(start < hi and lo < end for _, _, lo, hi in windows)

    for number, log in logs:
        for kind, item, start, end, outcome, result, *opened in log:
            counts["operations"] += 1
            refused_from = start
            if kind == "held-read" and any(opened[0] < hi for _, _, _, hi in windows if hi < start):
                refused_from = opened[0]  # an fd held across a lock: its EACCES may date from that lock (its buffer was wiped)
            if kind == "hang":
                violations.append(f"process {number}: {outcome}")
                continue
            unlocked_item = isinstance(item, int) and kind not in ("own-create", "own-delete", "own-rename") and item % 2 == 0
            if outcome != "ok":
                counts[f"{kind} {outcome}"] += 1
                if outcome == "EACCES" and unlocked_item and kind != "release":
                    # WhenUnlocked: EACCES is right in (or racing with) a locked window; a write may also
                    # find its class wiped by a lock that came after its open.
                    if not maybe_locked(refused_from, end):
                        violations.append(f"process {number}: {kind} item{item} EACCES outside any locked window")
                    continue
                if kind.startswith("own") and outcome in ("ENOENT", "EEXIST"):
                    continue
                if kind.startswith("own") and outcome == "EACCES":
                    continue  # a new item is WhenUnlocked: creating or listing its service meets the lock
                violations.append(f"process {number}: {kind} item{item}: unexpected {outcome}")
                continue
            if kind in ("read", "held-read") and unlocked_item and in_lock(start, end) and result:
                violations.append(f"process {number}: {kind} of item{item} returned the secret inside a locked window")
            if kind == "read":
                ident = parse_value(result)
                if ident is None and not any(i == result for *_, i, _c in writes[item] if isinstance(i, bytes)):
                    violations.append(f"process {number}: read of item{item} gave a torn or foreign value ({len(result)} bytes)")
                    continue
                # the last committed write that ended before this read began...
                done = [w for w in writes[item] if w[3] and w[1] < start]
                latest = max(done, key=lambda w: w[1]) if done else None
                source = [w for w in writes[item] if w[2] == ident or (isinstance(w[2], bytes) and w[2] == result)]
                if not source:
                    violations.append(f"process {number}: read of item{item} gave a value no one wrote")
                    continue
                w = source[0]
                if not w[3]:
                    violations.append(f"process {number}: read of item{item} gave the value of a write whose close failed")
                elif latest and w is not latest and w[1] < latest[0]:
                    violations.append(f"process {number}: lost update on item{item}: read {w[2]} though {latest[2]} was written after it, before the read")
                elif w[0] > end:
                    violations.append(f"process {number}: read of item{item} gave a value written after the read")
    return violations, counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=".build/debug/keychainfs")
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--ops", type=int, default=10000, help="operations per process")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--deadline", type=float, default=10.0)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    mount = Mount(os.path.abspath(args.binary))
    started = time.time()
    violations, counts, windows = [], collections.Counter(), []
    try:
        mount.device("passcode", "set", passcode=PASSCODE)
        initial = {}
        rng = random.Random(seed)
        for index in range(SHARED):
            path = shared_path(mount.path, index)
            os.makedirs(path)
            if index % 2:
                os.setxattr(path, "user.kSecAttrAccessible", b"ck")
            os.setxattr(path, "user.kSecAttrLabel", b"initial")
            data = value_for(0, index, rng)
            with open(path + "/value", "wb") as f:
                f.write(data)
            initial[index] = (0, index)
        for number in range(args.processes):
            os.makedirs(f"{mount.path}/genp/soak-w{number}", exist_ok=True)
        ctx = multiprocessing.get_context("fork")
        out = ctx.Queue()
        stop_at = ctx.Value("d", float("inf"))
        workers = [ctx.Process(target=worker, args=(n + 1, mount.path, mount.connection, args.ops, seed, args.deadline, out))
                   for n in range(args.processes)]
        lock_process = ctx.Process(target=locker, args=(mount, stop_at, out))
        for p in workers:
            p.start()
        lock_process.start()
        logs = []
        for _ in workers:
            logs.append(out.get(timeout=args.deadline * args.ops))
        stop_at.value = 0
        windows = out.get(timeout=60)[1]
        for p in workers + [lock_process]:
            p.join(timeout=30)
        if not mount.daemon_alive() or not mount.is_mounted():
            violations.append("the daemon died")
        found, counts = check(logs, windows, initial)
        violations += found
    finally:
        mount.close()
    elapsed = time.time() - started
    print(f"soak seed {seed}: {args.processes} processes, {counts['operations']} operations in {elapsed:.1f} s "
          f"({counts['operations'] / max(elapsed, 1e-9):.0f}/s), {len(windows)} lock/unlock cycles, {len(violations)} violations")
    print("expected errors: " + ", ".join(f"{k}×{v}" for k, v in sorted(counts.items()) if k != "operations"))
    if violations:
        print("FAILED:\n  " + "\n  ".join(violations[:30]), file=sys.stderr)
        print(f"replay: {sys.argv[0]} --seed {seed} --ops {args.ops}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
