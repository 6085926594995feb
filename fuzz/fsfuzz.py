#!/usr/bin/env python3
"""fs-operation fuzzer (docs/spec.md §8): random filesystem calls on a real keychainfs mount, each under a deadline,
against a model of what the mount must hold.

After every batch it checks that the daemon lives, that the mount lists exactly the model's items with the
model's values and labels, and throughout that every errno is one docs/spec.md §4's table (or the kernel for the
call) allows. Some outcomes are certain and checked exactly: a secret never reads while locked (a fresh
open or an fd held across the lock), a read of an item gives its last written value, a write to an
unlocked item succeeds, a collision is EEXIST. Exit status 1 on any violation, with the seed and the
last operations to replay it: `fsfuzz.py --seed N --ops M`.
"""
import argparse
import collections
import errno
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kcfs_mount import Deadlines, Hang, Mount  # noqa: E402
from names import escape, random_name, shortened  # noqa: E402

# docs/spec.md §4 "Errors" (the OSStatus table and bad input), plus what the kernel itself answers for the call.
ALLOWED = {errno.ENOENT, errno.EEXIST, errno.EACCES, errno.EPERM, errno.EINVAL, errno.ENOTSUP, errno.ENODATA,
           errno.EFBIG, errno.EXDEV, errno.ENOTDIR, errno.EISDIR, errno.ENOTEMPTY, errno.ENAMETOOLONG,
           errno.ERANGE, errno.E2BIG, errno.EBADF}
PASSCODE = "2468"
NAMING = {"genp": ("kSecAttrService", "kSecAttrAccount"), "inet": ("kSecAttrServer", "kSecAttrAccount")}
FREE_TEXT = ["user.kSecAttrLabel", "user.kSecAttrComment", "user.kSecAttrDescription"]


class Violation(Exception):
    pass


class Item:
    def __init__(self):
        self.values = {b""}   # what a read may give: one value, or the two sides of an unresolved race
        self.xattrs = {}
        self.tier = "a"       # kSecAttrAccessible's tier: only "a" items are unavailable while locked
        self.making = True    # made by mkdir, no value written yet: reading it is ENODATA (docs/filesystem.md)


class FSFuzzer:
    def __init__(self, mount, seed, deadline):
        self.m, self.rng = mount, random.Random(seed)
        self.seed = seed
        self.d = Deadlines(mount, deadline)
        self.items = {}            # (class, group name, item name) -> Item
        self.stale = []            # paths of items that moved or were deleted (their dentries may be cached)
        self.held = []             # (fd, key, flags, opened while locked)
        self.locked = False
        # The operations printed after a failure (FSFUZZ_LOG=100000 keeps them all, to follow one item).
        self.log = collections.deque(maxlen=int(os.environ.get("FSFUZZ_LOG", "40")))
        self.ops = 0
        self.errnos = collections.Counter()
        self.successes = collections.Counter()
        self.time = collections.Counter()
        raws = [random_name(self.rng) for _ in range(10)]
        self.groups = [raw for raw in raws if escape(raw) not in (".", "..")]
        self.accounts = [random_name(self.rng) for _ in range(10)]

    # ---------- helpers

    def path(self, key, *rest):
        return "/".join([self.m.path, key[0], key[1], key[2], *rest])

    def random_key(self, existing_bias=0.6):
        if self.items and self.rng.random() < existing_bias:
            return self.rng.choice(sorted(self.items))
        cls = self.rng.choice(["genp", "genp", "inet"])
        item = escape(self.rng.choice(self.accounts))
        if self.rng.random() < 0.1:
            item += self.rng.choice([";sync=1", ";agrp=TEAM.x", ";agrp=default", ";sync=0", ";port=443", ";ptcl=htps"])
        return (cls, escape(self.rng.choice(self.groups)), item)

    def call(self, name, fn, *args, certain=None):
        """Runs fn under the deadline; returns (ok, result or errno). `certain`: the errno (or 0) the model is sure of."""
        if any("agrp=" in str(arg) for arg in args):
            certain = None  # another access group than the mount's: EACCES (errSecMissingEntitlement) or EINVAL for the default
        if self.locked and certain == errno.ENOENT:
            certain = None  # a lookup whose scan meets a locked item fails as a whole with EACCES (docs/spec.md §3)
        self.ops += 1
        self.log.append(f"{self.ops}: {name} {args!r}"[:300])
        started = time.perf_counter()
        try:
            result = self.d.call(fn, *args)
        except Hang:
            raise
        except OSError as error:
            self.time[name] += time.perf_counter() - started
            self.errnos[(name, errno.errorcode.get(error.errno, error.errno))] += 1
            # The kernel's own answer when, during a rename between two directories, it meets an item
            # directory (whose inode survives moves) under a second name, after the item moved behind its
            # back (setxattr of a naming attribute): known, documented in README ("The kernel's cache").
            if name == "rename" and error.errno == errno.ESTALE:
                return False, error.errno
            if error.errno not in ALLOWED:
                raise Violation(f"{name}: errno {errno.errorcode.get(error.errno, error.errno)} is not in docs/spec.md §4's table")
            # A component over NAME_MAX is refused by the kernel before the model's case is reached.
            if certain is not None and certain != error.errno and error.errno != errno.ENAMETOOLONG:
                raise Violation(f"{name}: expected {errno.errorcode.get(certain, 'success')}, got {errno.errorcode[error.errno]}")
            return False, error.errno
        self.time[name] += time.perf_counter() - started
        self.successes[name] += 1
        if certain:
            raise Violation(f"{name}: expected {errno.errorcode[certain]}, got success")
        return True, result

    def unavailable(self, key):
        return self.locked and self.items[key].tier == "a"

    def move(self, old, new):
        self.items[new] = self.items.pop(old)
        self.stale.append(self.path(old))

    # ---------- operations

    def op_mkdir(self):
        key = self.random_key(0.3)
        plain = ";" not in key[2] and len(key[2].encode()) <= 255 and len(key[1].encode()) <= 255
        certain = None
        if plain and not self.locked:
            certain = errno.EEXIST if key in self.items else 0
        ok, _ = self.call("mkdir", self.make_item, self.path(key), certain=certain)
        if ok:
            self.items[key] = Item()

    @staticmethod
    def make_item(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.mkdir(path)

    @staticmethod
    def rename_into(src, dst):
        """rename(2), with the destination's service directory made first (as `mkdir -p S && mv` would)."""
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        os.rename(src, dst)

    def write_value(self, path, data):
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def op_write(self):
        key = self.random_key()
        data = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(0, 80)))
        certain = None if self.locked else (0 if key in self.items else errno.ENOENT)
        ok, _ = self.call("write", self.write_value, self.path(key, "value"), data, certain=certain)
        if ok:
            if key not in self.items:
                raise Violation("write succeeded on an item the model does not have")
            self.items[key].values = {data}
            self.items[key].making = False

    def read_value(self, path):
        fd = os.open(path, os.O_RDONLY)
        try:
            return os.read(fd, 1 << 20)
        finally:
            os.close(fd)

    def op_read(self):
        key = self.random_key()
        certain = (errno.EACCES if self.unavailable(key) else 0) if key in self.items else None if self.locked else errno.ENOENT
        if certain == 0 and self.items[key].making:
            certain = errno.ENODATA  # nothing written yet: no value, not an empty one
        ok, data = self.call("read", self.read_value, self.path(key, "value"), certain=certain)
        if ok and data not in self.items[key].values:
            raise Violation(f"read {len(data)} bytes that are none of the values written")
        if ok:
            self.items[key].values = {data}

    def op_truncate(self):
        key = self.random_key()
        size = self.rng.randint(0, 100)
        certain = None if self.locked else (0 if key in self.items else errno.ENOENT)
        ok, _ = self.call("truncate", os.truncate, self.path(key, "value"), size, certain=certain)
        if ok:
            item = self.items[key]
            if len(item.values) != 1:
                raise Violation("truncate succeeded on a value the model does not know")
            value = next(iter(item.values))
            item.values = {value[:size] + b"\0" * max(0, size - len(value))}
            item.making = False

    def op_rename(self):
        src = self.random_key(0.8)
        roll = self.rng.random()
        if roll < 0.15:
            dst = src
        elif roll < 0.35 and self.items:
            dst = self.rng.choice(sorted(self.items))
        elif roll < 0.45:
            dst = ("inet" if src[0] == "genp" else "genp", src[1], src[2])
        else:
            dst = (src[0], escape(self.rng.choice(self.groups)), escape(self.rng.choice(self.accounts)))
        certain = None
        simple = all(len(part.encode()) <= 255 and ";" not in part for part in dst[1:])
        if src in self.items and not self.locked and simple:
            if dst[0] != src[0]:
                certain = errno.EXDEV
            elif dst != src and dst in self.items:
                certain = errno.EEXIST
        elif src not in self.items and dst[0] == src[0] and simple and ";" not in src[2]:
            certain = errno.ENOENT
        ok, _ = self.call("rename", self.rename_into, self.path(src), self.path(dst), certain=certain)
        if ok and src != dst:
            if src not in self.items or dst in self.items:
                raise Violation("rename succeeded where the model has no source or has the destination")
            self.move(src, dst)

    def op_rename_stale(self):
        """rename(old, old) of a path whose item moved or was deleted (this once hung; docs/filesystem.md, "Renames")."""
        if not self.stale:
            return self.op_rename()
        old = self.rng.choice(self.stale[-20:])
        if self.rng.random() < 0.5:
            old += "/value"
        parts = old[len(self.m.path) + 1:].split("/")
        if tuple(parts[:3]) in self.items:
            return
        self.call("rename-stale", os.rename, old, old, certain=errno.ENOENT)

    def op_setxattr_naming(self):
        key = self.random_key(0.9)
        if key[0] not in NAMING:
            return
        which = self.rng.randrange(2)
        raw = self.rng.choice(self.groups if which == 0 else self.accounts)
        name = "user." + NAMING[key[0]][which]
        if which == 0:
            new = (key[0], escape(raw), key[2])
        else:
            qualifiers = key[2][len(key[2].split(";")[0]):]
            new = (key[0], key[1], escape(raw) + qualifiers)
        ok, _ = self.call("setxattr-naming", os.setxattr, self.path(key), name, raw)
        if ok and key in self.items and new != key:
            if new in self.items:
                raise Violation(f"{name} moved an item onto an existing one")
            self.move(key, new)

    def op_setxattr(self):
        key = self.random_key()
        if self.rng.random() < 0.7:
            name, value = self.rng.choice(FREE_TEXT), "".join(self.rng.choice("abc éz\u4e2d") for _ in range(self.rng.randint(0, 12))).encode()
        else:
            name = self.rng.choice(["user.kSecAttrAccessible", "user.kSecAttrCreator", "user.kSecAttrType", "user.kSecAttrIsInvisible",
                                    "user.kSecAttrGeneric", "user.kSecAttrCreationDate", "user.kSecValuePersistentRef", "user.bogus",
                                    "trusted.x", "user.kSecAttrPort", "user.kSecAttrSynchronizable"])
            value = self.rng.choice([b"1", b"0", b"-1", b"2", b"kSecAttrAccessibleAfterFirstUnlock", b"ck", b"dk", b"akpu",
                                     b"2026-11-22T11:42:30.895Z", b"\xff\xfe", b"", b"99999999999999999999", b"true"])
        if name == "user.kSecAttrSynchronizable" or (name == "user.kSecAttrPort" and key[0] == "inet"):
            return  # naming qualifiers: they move items (op_setxattr_naming covers moves)
        if name == "user.kSecAttrAccessible" and value in (b"akpu",):
            return  # akpu items are deleted with the passcode: not in this model
        ok, _ = self.call("setxattr", os.setxattr, self.path(key), name, value)
        if ok and key in self.items and name in FREE_TEXT:
            self.items[key].xattrs[name] = value
        if ok and key in self.items and name == "user.kSecAttrAccessible":
            self.items[key].tier = {b"ck": "c", b"kSecAttrAccessibleAfterFirstUnlock": "c", b"dk": "d"}[value]

    def op_removexattr(self):
        key = self.random_key()
        name = self.rng.choice(FREE_TEXT + ["user.kSecAttrAccount", "user.nothing"])
        ok, _ = self.call("removexattr", os.removexattr, self.path(key), name)
        if ok and key in self.items:
            if name == "user.kSecAttrAccount":  # a primary-key attribute goes back to its default: the empty account
                new = (key[0], key[1], escape(b"") + key[2][len(key[2].split(";")[0]):])
                if new != key:
                    if new in self.items:
                        raise Violation("removing kSecAttrAccount moved an item onto an existing one")
                    self.move(key, new)
            elif name in FREE_TEXT:
                self.items[key].xattrs[name] = None

    def op_rmdir(self):
        key = self.random_key()
        if self.rng.random() < 0.15:
            path = os.path.dirname(self.path(key))
            ok, _ = self.call("rmdir-group", os.rmdir, path)
            if ok and any(k[:2] == key[:2] for k in self.items):
                raise Violation("rmdir of a service directory with items succeeded")
            return
        certain = errno.ENOENT if key not in self.items and ";" not in key[2] else None
        ok, _ = self.call("rmdir", os.rmdir, self.path(key), certain=certain)
        if ok:
            if key not in self.items:
                raise Violation("rmdir succeeded on an item the model does not have")
            self.held = [h for h in self.held if h[1] is not self.items.get(key) or self.close_quietly(h[0])]
            del self.items[key]
            self.stale.append(self.path(key))

    def close_quietly(self, fd):
        try:
            os.close(fd)
        except OSError:
            pass
        return False

    def op_odd_open(self):
        key = self.random_key()
        target = self.rng.choice(["value", "value", "", "other", "../value"])
        path = self.path(key, target) if target else self.path(key)
        flags = self.rng.choice([os.O_RDONLY | os.O_DIRECTORY, os.O_WRONLY | os.O_APPEND, os.O_RDWR | os.O_CREAT | os.O_EXCL,
                                 os.O_WRONLY | os.O_CREAT, os.O_RDONLY | os.O_NOFOLLOW, os.O_PATH, os.O_RDWR | os.O_NONBLOCK,
                                 os.O_WRONLY | os.O_SYNC, os.O_RDONLY | os.O_NOATIME])
        ok, fd = self.call("open-odd", os.open, path, flags)
        if ok:
            self.call("close-odd", os.close, fd)

    def op_hold(self):
        written = sorted(k for k, item in self.items.items() if any(item.values))
        key = self.rng.choice(written) if written and self.rng.random() < 0.8 else self.random_key(0.9)
        if key not in self.items or len(self.held) > 8:
            return
        flags = self.rng.choice([os.O_RDONLY, os.O_RDWR])
        ok, fd = self.call("open-held", os.open, self.path(key, "value"), flags)
        if ok:
            self.held.append((fd, self.items[key], flags, self.locked))

    def op_read_held(self):
        if not self.held:
            return self.op_hold()
        fd, item, flags, opened_locked = self.rng.choice(self.held)
        alive = any(candidate is item for candidate in self.items.values())
        locked_out = self.locked and item.tier == "a"
        ok, data = self.call("pread-held", os.pread, fd, 4096, 0)
        kind = "O_RDWR" if flags == os.O_RDWR else "O_RDONLY"
        if ok and locked_out and (data or alive):
            raise Violation(f"an {kind} fd opened {'while locked' if opened_locked else 'before the lock'} read "
                            f"{len(data)} bytes{' (its secret)' if data in item.values else ''} of a WhenUnlocked item while the device is locked (expected EACCES)")
        if not ok and locked_out and alive and data != errno.EACCES:
            raise Violation(f"an {kind} fd read while locked gave {errno.errorcode[data]}, not EACCES")

    def op_close_held(self):
        if not self.held:
            return
        entry = self.held.pop(self.rng.randrange(len(self.held)))
        self.call("close-held", os.close, entry[0])

    def op_forbidden(self):
        key = self.random_key()
        value = self.path(key, "value")
        choice = self.rng.randrange(7)
        if choice == 0:
            self.call("symlink", os.symlink, "/etc/passwd", self.path(key, "link"))
        elif choice == 1:
            self.call("link", os.link, value, self.path(key, "hard"))
        elif choice == 2:
            self.call("mknod", os.mknod, self.path(key, "node"), 0o600 | 0o010000)
        elif choice == 3:
            self.call("chmod", os.chmod, value, self.rng.choice([0o777, 0o600, 0o4755]))
        elif choice == 4:
            self.call("chown", os.chown, value, self.rng.choice([0, 1000, 65534]), -1)
        elif choice == 5:
            self.call("utime", os.utime, value, (0, 0))
        else:
            self.call("unlink", os.unlink, value, certain=None)

    def op_lock_cycle(self):
        if self.locked:
            self.m.device("unlock", passcode=PASSCODE)
            self.locked = False
        else:
            self.m.device("lock")
            self.locked = True
        self.ops += 1
        self.log.append(f"{self.ops}: device {'lock' if self.locked else 'unlock'}")

    OPS = [("op_mkdir", 12), ("op_write", 14), ("op_read", 16), ("op_truncate", 5), ("op_rename", 10), ("op_rename_stale", 3),
           ("op_setxattr_naming", 5), ("op_setxattr", 8), ("op_removexattr", 4), ("op_rmdir", 6), ("op_odd_open", 5),
           ("op_hold", 3), ("op_read_held", 4), ("op_close_held", 2), ("op_forbidden", 4), ("op_lock_cycle", 0.4)]

    # ---------- checks

    def verify(self):
        try:
            self.check_contents()
        except OSError as error:
            raise Violation(f"checking the mount against the model: {error}")

    def check_contents(self):
        if not self.m.daemon_alive() or not self.m.is_mounted():
            raise Violation("the daemon died")
        if self.locked:
            return
        listed = set()
        for cls in ("genp", "inet"):
            for group in self.d.call(os.listdir, f"{self.m.path}/{cls}"):
                for item in self.d.call(os.listdir, f"{self.m.path}/{cls}/{group}"):
                    listed.add((cls, group, item))
        expected = {(cls, shortened(group), shortened(item)) for cls, group, item in self.items}
        missing, extra = expected - listed, listed - expected
        if missing or extra:
            raise Violation(f"the mount lists other items than the model: missing {sorted(missing)[:3]} extra {sorted(extra)[:3]}")
        for key, item in self.items.items():
            key = (key[0], shortened(key[1]), shortened(key[2]))  # a long name is reached by the name it is listed as
            if item.making:
                try:
                    self.d.call(self.read_value, self.path(key, "value"))
                except OSError as error:
                    if error.errno == errno.ENODATA:
                        continue
                    raise
                raise Violation(f"{key}: an item in the making read as a value")
            data = self.d.call(self.read_value, self.path(key, "value"))
            if data not in item.values:
                raise Violation(f"{key}: value is none of those written")
            item.values = {data}
            for name in FREE_TEXT:
                try:
                    got = self.d.call(os.getxattr, self.path(key), name)
                except OSError as error:
                    if error.errno != errno.ENODATA:
                        raise Violation(f"{key}: getxattr {name}: {errno.errorcode[error.errno]}")
                    got = None
                if name in item.xattrs and got != item.xattrs[name]:  # None: removed
                    raise Violation(f"{key}: {name} is {got!r}, the model says {item.xattrs[name]!r}")

    def run(self, count, batch, without=()):
        self.m.device("passcode", "set", passcode=PASSCODE)
        ops = [(name, weight) for name, weight in self.OPS if not any(word in name for word in without)]
        names = [name for name, _ in ops]
        weights = [weight for _, weight in ops]
        while self.ops < count:
            for _ in range(batch):
                getattr(self, self.rng.choices(names, weights)[0])()
            self.verify()
        for fd, *_ in self.held:
            self.close_quietly(fd)
        if self.locked:
            self.m.device("unlock", passcode=PASSCODE)
            self.locked = False
        self.verify()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=".build/debug/keychainfs")
    parser.add_argument("--ops", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--deadline", type=float, default=10.0, help="seconds any one call may take")
    parser.add_argument("--batch", type=int, default=250)
    parser.add_argument("--without", action="append", default=[],
                        help="leave out the operations whose name contains this (e.g. rename), to look past a known defect")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    mount = Mount(os.path.abspath(args.binary))
    fuzzer = FSFuzzer(mount, seed, args.deadline)
    start = time.time()
    failure = None
    try:
        fuzzer.run(args.ops, args.batch, args.without)
    except (Violation, Hang) as error:
        failure = error
    finally:
        mount.close()
    elapsed = time.time() - start
    print(f"fsfuzz seed {seed}: {fuzzer.ops} operations in {elapsed:.1f} s ({fuzzer.ops / max(elapsed, 1e-9):.0f}/s), "
          f"{sum(fuzzer.successes.values())} succeeded, {len(fuzzer.items)} items at the end")
    print("errnos: " + ", ".join(f"{op} {name}×{n}" for (op, name), n in sorted(fuzzer.errnos.items())))
    if failure:
        print(f"FAILED ({type(failure).__name__}): {failure}\nreplay: {sys.argv[0]} --seed {seed} --ops {fuzzer.ops}\nlast operations:",
              file=sys.stderr)
        print("\n".join(fuzzer.log), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
