#!/usr/bin/env python3
"""keychainfs against libfuse's floor (hello_ll, passthrough_ll), tmpfs, gnome-keyring (secret-tool)
and pass: every figure of docs/spec.md §7, interleaved (A B A B …), reported as median (min–max) and ratio."""
import argparse, json, os, random, shutil, signal, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--keychainfs", required=True)
ap.add_argument("--tools", required=True)
ap.add_argument("--results", required=True)
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--large", type=int, default=100_000, help="items in the largest vault made through the mount")
ap.add_argument("--million", type=int, default=1_000_000, help="items in the vault built through the engine (0: none)")
ap.add_argument("--build-vault", default=None, help="bench/engine's BuildVault (needed with --million)")
args = ap.parse_args()
KC = os.path.abspath(args.keychainfs)
T = lambda name: os.path.join(os.path.abspath(args.tools), name)
WORK = tempfile.mkdtemp(prefix="kcfs-bench-", dir="/tmp")
results, mounts = {}, []


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout.strip()


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": len(values)}


def timed(cmd, stdin=None):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, input=stdin)
    return time.perf_counter() - start


def interleave(variants, rounds, measure):
    """Runs measure(variant) for each variant in turn, `rounds` times: A B C A B C …"""
    samples = {name: [] for name in variants}
    for _ in range(rounds):
        for name, spec in variants.items():
            samples[name].append(measure(spec))
    return {name: summary(v) for name, v in samples.items()}


def kc_vault(name, test_device=True):
    vault, mnt = f"{WORK}/{name}/vault", f"{WORK}/{name}/mnt"
    sh([KC, "init", vault] + (["--test-device"] if test_device else []))
    sh([KC, "mount", vault, mnt])
    mounts.append(("kc", mnt))
    return vault, mnt


def cleanup():
    for kind, mnt in reversed(mounts):
        subprocess.run([KC, "unmount", mnt] if kind == "kc" else ["fusermount3", "-u", mnt], capture_output=True)
    shutil.rmtree(WORK, ignore_errors=True)


def daemon_rss_kib(vault):
    pid = json_status(vault)["pid"]
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])


def json_status(vault):
    text = sh([KC, "status", "--vault", vault])
    fields = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
    return {"pid": int(fields["pid"])}


def encode(value):
    """keychainfs's ValueCodec (Sources/KeychainFSModel/Values/ValueCodec.swift), for the control socket."""
    import struct
    if isinstance(value, str):
        raw = value.encode(); return b"\x01" + struct.pack(">I", len(raw)) + raw
    if isinstance(value, int):
        return b"\x03" + struct.pack(">q", value)
    if isinstance(value, dict):
        out = b"\x07" + struct.pack(">I", len(value))
        for key in sorted(value):
            raw = key.encode(); out += struct.pack(">I", len(raw)) + raw + encode(value[key])
        return out
    raise TypeError(value)


def control_lock_latency_ms(vault, path):
    """Time from sending device.lock on the control socket to the first read that fails with EACCES."""
    import socket, struct, errno
    payload = encode({"version": 1, "command": "device.lock", "arguments": {}})
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(f"{vault}/control.sock")
    start = time.perf_counter()
    sock.sendall(struct.pack(">I", len(payload)) + payload)
    sock.recv(65536)
    while True:
        try:
            with open(path, "rb") as f: f.read()
        except PermissionError:
            break
    elapsed = (time.perf_counter() - start) * 1000
    sock.close()
    return elapsed


def print_ratios(label, figures, ours, higher_is_better):
    """One line: keychainfs's median against each anchor's, as a factor (above 1: keychainfs is better)."""
    mine = figures[ours]["median"]
    factors = [(name, (mine / v["median"]) if higher_is_better else (v["median"] / mine)) for name, v in figures.items() if name != ours]
    print(f"{label}: " + ", ".join(f"{factor:.2f}× {name}" for name, factor in factors))


def section(title):
    """A section's heading, with the machine's load as it starts (round trips cost more on an idle vCPU
    and less on a busy one, so every figure is read against the load it was measured under)."""
    load = os.getloadavg()
    results.setdefault("load", {})[title] = load
    print(f"\n== {title}   (load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})", flush=True)


try:
    # --- Anchors: libfuse's floor and tmpfs.
    hello = f"{WORK}/hello"; os.makedirs(hello)
    subprocess.run([T("hello_ll"), hello], check=True); mounts.append(("fuse", hello)); time.sleep(0.3)
    passthrough = f"{WORK}/passthrough"; os.makedirs(passthrough)
    subprocess.run([T("passthrough_ll"), "-o", "source=/dev/shm", passthrough], check=True); mounts.append(("fuse", passthrough)); time.sleep(0.3)
    shm = tempfile.mkdtemp(prefix="kcfs-bench-", dir="/dev/shm")
    tmpfs_file = f"{shm}/value"; open(tmpfs_file, "w").write("secret-0-1")
    passthrough_file = f"{passthrough}/{os.path.basename(shm)}/value"

    # --- keychainfs: a small vault (a real device: MODERATE Argon2id for the unlock figure).
    vault, mnt = kc_vault("small", test_device=False)
    sh([T("mkitems"), mnt, "1", "10"])
    value = f"{mnt}/genp/svc0/acct1/value"
    # The same ten items on the kernel-cache read path (docs/spec.md §4): made on a gatekeeper mount, then remounted.
    kvault, kmnt = kc_vault("kernelcache")
    sh([T("mkitems"), kmnt, "1", "10"])
    sh([KC, "unmount", kmnt]); sh([KC, "mount", kvault, kmnt, "--kernel-cache"])
    kvalue = f"{kmnt}/genp/svc0/acct1/value"

    section("1. open+read+close of one file, in a loop (ops/s)")
    loop = interleave({"keychainfs": value, "keychainfs --kernel-cache": kvalue, "hello_ll": f"{hello}/hello",
                       "passthrough_ll": passthrough_file, "tmpfs": tmpfs_file},
                      args.rounds, lambda path: float(sh([T("readloop"), "2", path])))
    results["read_loop"] = loop
    for k, v in loop.items(): print(f"{k:26} {v['median']:10.0f} ops/s  ({v['min']:.0f}–{v['max']:.0f})")
    print_ratios("keychainfs (gatekeeper) ops/s", loop, "keychainfs", higher_is_better=True)
    print_ratios("keychainfs --kernel-cache ops/s", loop, "keychainfs --kernel-cache", higher_is_better=True)

    # --- gnome-keyring (inside this D-Bus session, unlocked) and pass (throwaway GNUPGHOME, no passphrase).
    keyring = subprocess.run(["gnome-keyring-daemon", "--unlock", "--components=secrets"], input="\n", capture_output=True, text=True)
    for line in keyring.stdout.splitlines():
        if "=" in line: k, v = line.split("=", 1); os.environ[k] = v
    subprocess.run(["secret-tool", "store", "--label=bench", "service", "bench", "account", "a"], input=b"secret-0-1", check=True)
    os.environ["GNUPGHOME"] = f"{WORK}/gnupg"; os.makedirs(os.environ["GNUPGHOME"], mode=0o700)
    os.environ["PASSWORD_STORE_DIR"] = f"{WORK}/pass"
    sh(["gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--quick-gen-key", "bench@keychainfs.invalid", "default", "default", "never"])
    sh(["pass", "init", "bench@keychainfs.invalid"])
    subprocess.run(["pass", "insert", "-m", "bench/a"], input=b"secret-0-1\n", check=True, capture_output=True)

    section("2. reading a secret as a process (ms per run)")
    cat = interleave({"keychainfs (cat value)": ["cat", value], "keychainfs --kernel-cache (cat value)": ["cat", kvalue],
                      "cat regular file": ["cat", tmpfs_file],
                      "secret-tool lookup": ["secret-tool", "lookup", "service", "bench", "account", "a"],
                      "pass show": ["pass", "show", "bench/a"]}, args.rounds * 6, lambda cmd: timed(cmd) * 1000)
    results["cat"] = cat
    for k, v in cat.items(): print(f"{k:25} {v['median']:8.2f} ms  ({v['min']:.2f}–{v['max']:.2f})")
    print_ratios("keychainfs is faster than", cat, "keychainfs (cat value)", higher_is_better=False)

    section("3. creating an item (ms per item)")
    counter = iter(range(10**9))
    # FUSE's floor for the same requests: the same mkitems on libfuse's passthrough_ll (over /dev/shm), its
    # `value` made by an O_CREAT open; no keychain behind it.
    os.makedirs(f"{shm}/genp", exist_ok=True)
    def create(kind):
        i = next(counter)
        if kind in ("keychainfs", "passthrough_ll"):
            root, extra = (mnt, []) if kind == "keychainfs" else (os.path.dirname(passthrough_file), ["create"])
            start = time.perf_counter(); sh([T("mkitems"), root, "1", "20", f"new{i}-", *extra]); return (time.perf_counter() - start) * 1000 / 20
        if kind == "secret-tool store":
            return timed(["secret-tool", "store", f"--label=b{i}", "service", "bench", "account", f"n{i}"], stdin=b"secret") * 1000
        return timed(["pass", "insert", "-m", f"bench/n{i}"], stdin=b"secret\n") * 1000
    creation = interleave({"keychainfs": "keychainfs", "secret-tool store": "secret-tool store", "pass insert": "pass insert",
                           "passthrough_ll": "passthrough_ll"}, args.rounds, create)
    results["create"] = creation
    for k, v in creation.items(): print(f"{k:20} {v['median']:8.2f} ms  ({v['min']:.2f}–{v['max']:.2f})")
    print_ratios("keychainfs is faster than", creation, "keychainfs", higher_is_better=False)

    section("4. xattrs (ops/s)")
    item = os.path.dirname(value)
    xattr = interleave({"getxattr": ["get", item, "user.kSecAttrAccount"], "listxattr": ["list", item]}, args.rounds,
                       lambda a: float(sh([T("xattrloop"), "1", *a])))
    results["xattr"] = xattr
    for k, v in xattr.items(): print(f"{k:10} {v['median']:10.0f} ops/s")

    section("5. device lock and unlock, with 1,000 values in the kernel's cache")
    subprocess.run([KC, "device", "passcode", "set", "--vault", vault, "--passcode-stdin"], input="1234\n", check=True, text=True)
    sh([T("mkitems"), mnt, "1", "1000", "cached"])
    # Fill the cache, then let the daemon finish the 1,000 asynchronous RELEASEs of those reads: the figure
    # is the lock with values cached, not the lock competing with a backlog of closes for 2 cores.
    cached = f"find {mnt}/genp/svc0 -name value | xargs cat > /dev/null; sleep 0.5"
    locks, socket_locks, unlocks = [], [], []
    for _ in range(args.rounds):
        subprocess.run(cached, shell=True, check=True)  # every lock invalidates what the kernel holds: fill it again
        locks.append(float(sh([T("locklatency"), KC, mnt, value])))
        unlocks.append(timed([KC, "device", "unlock", "--vault", vault, "--passcode-stdin"], stdin=b"1234\n") * 1000)
        subprocess.run(cached, shell=True, check=True)
        socket_locks.append(control_lock_latency_ms(vault, value))
        sh([KC, "device", "unlock", "--vault", vault, "--passcode-stdin"], input="1234\n")
    results["lock_ms"], results["lock_socket_ms"], results["unlock_ms"] = summary(locks), summary(socket_locks), summary(unlocks)
    print(f"lock in force {statistics.median(locks):.2f} ms after `keychainfs device lock` starts "
          f"({statistics.median(socket_locks):.2f} ms after the request reaches the socket); "
          f"unlock {statistics.median(unlocks):.0f} ms (Argon2id MODERATE)")

    counts = [10, 1000, args.large] + ([args.million] if args.million and args.build_vault else [])
    section("6. scale: " + ", ".join(f"{c:,}" for c in counts) + " items")
    # All vaults stay mounted so that their reads can be interleaved like every other comparison
    # (measured one after the other, minutes apart, they compared this machine's moods, not item counts).
    # The largest is built through the engine (BuildVault: 10 services × 100,000 accounts, plus a service
    # of 10,000 for `ls`), the others through the mount.
    scale, vaults, services_of = {}, {}, {}
    for count in counts:
        built = count == args.million
        services = 10 if built else max(1, count // 10_000)
        accounts = count // services
        services_of[count] = services
        if built:
            vault_n, mnt_n = f"{WORK}/scale{count}/vault", f"{WORK}/scale{count}/mnt"
            start = time.perf_counter()
            sh([os.path.abspath(args.build_vault), vault_n, str(services), str(accounts), "10000"])
            made = time.perf_counter() - start
            sh([KC, "mount", vault_n, mnt_n]); mounts.append(("kc", mnt_n))
        else:
            vault_n, mnt_n = kc_vault(f"scale{count}")
            start = time.perf_counter()
            sh([T("mkitems"), mnt_n, str(services), str(accounts)])
            made = time.perf_counter() - start
        paths = [f"{mnt_n}/genp/svc{random.randrange(services)}/acct{random.randrange(accounts)}/value" for _ in range(2000)]
        listfile = f"{WORK}/paths{count}"; open(listfile, "w").write("\n".join(paths))
        vaults[count] = (vault_n, mnt_n, listfile, paths[0])
        scale[count] = {"items": count, "create_s": made, "built_through": "engine" if built else "mount"}
    # Let the kernel write the new databases back first: reads measured during the writeback of
    # 100,000 fresh items measured the writeback (on 2 cores) more than the reads.
    os.sync(); time.sleep(1)
    reads = interleave({count: v[2] for count, v in vaults.items()}, args.rounds, lambda listfile: float(sh([T("readloop"), "2", "@" + listfile])))
    for count, (vault_n, mnt_n, listfile, first_path) in vaults.items():
        entry = scale[count]
        entry["random_reads"], entry["rss_kib"] = reads[count], daemon_rss_kib(vault_n)
        if count >= 10_000:
            listed = f"{mnt_n}/genp/" + ("listed" if count == args.million else "svc0")  # a service of 10,000 accounts
            entry["ls_10000_s"] = summary([timed(["ls", listed]) for _ in range(5)])
            if count == args.million:
                entry["ls_100000_s"] = summary([timed(["ls", f"{mnt_n}/genp/svc0"]) for _ in range(3)])
                # The RSS target holds through listings too (they once kept every item's attributes at once).
                entry["rss_after_ls_kib"] = daemon_rss_kib(vault_n)
            start = time.perf_counter()
            subprocess.run(f"find {listed} -name value | xargs cat > /dev/null", shell=True, check=True)
            entry["find_xargs_cat_10000_s"] = time.perf_counter() - start
        sh([KC, "unmount", mnt_n])
        start = time.perf_counter()
        sh([KC, "mount", vault_n, mnt_n])
        while subprocess.run(["cat", first_path], capture_output=True).returncode != 0:
            time.sleep(0.005)
        entry["mount_to_first_read_s"] = time.perf_counter() - start
        print(f"{count:9,} items: {entry['random_reads']['median']:8.0f} random reads/s "
              f"({entry['random_reads']['median'] / reads[10]['median']:.2f}× the 10-item rate), RSS {entry['rss_kib'] / 1024:.0f} MiB, "
              f"mount→first read {entry['mount_to_first_read_s']:.2f} s, created at {count / entry['create_s']:.0f} items/s"
              + (f", ls of 10,000 accounts {entry['ls_10000_s']['median']:.3f} s, find|xargs cat {entry['find_xargs_cat_10000_s']:.2f} s"
                 if "ls_10000_s" in entry else "")
              + (f", ls of 100,000 accounts {entry['ls_100000_s']['median']:.2f} s, RSS after it {entry['rss_after_ls_kib'] / 1024:.0f} MiB"
                 if "ls_100000_s" in entry else ""))
        sh([KC, "unmount", mnt_n]); mounts.remove(("kc", mnt_n)); shutil.rmtree(f"{WORK}/scale{count}", ignore_errors=True)
    results["scale"] = scale

    # --- Targets (docs/spec.md §7) and ratios.
    kc_loop, hello_loop = loop["keychainfs"]["median"], loop["hello_ll"]["median"]
    kcache_loop, tmpfs_loop = loop["keychainfs --kernel-cache"]["median"], loop["tmpfs"]["median"]
    kc_cat = cat["keychainfs (cat value)"]["median"]
    largest = max(scale)
    small, large = scale[10]["random_reads"]["median"], scale[largest]["random_reads"]["median"]
    targets = [
        ("open+read+close vs tmpfs, gatekeeper path", kc_loop / tmpfs_loop, ">= 0.25", kc_loop / tmpfs_loop >= 0.25),
        ("open+read+close vs tmpfs, kernel-cache path", kcache_loop / tmpfs_loop, ">= 0.5", kcache_loop / tmpfs_loop >= 0.5),
        ("cat value vs cat of a regular file", kc_cat / cat["cat regular file"]["median"], "<= 1.05", kc_cat / cat["cat regular file"]["median"] <= 1.05),
        ("secret-tool store vs item creation", creation["secret-tool store"]["median"] / creation["keychainfs"]["median"], ">= 50",
         creation["secret-tool store"]["median"] / creation["keychainfs"]["median"] >= 50),
        (f"random reads at {largest:,} vs 10 items", large / small, ">= 0.9", large / small >= 0.9),
        (f"mount to first read at {largest:,} items (s)", scale[largest]["mount_to_first_read_s"], "< 1", scale[largest]["mount_to_first_read_s"] < 1),
        (f"daemon RSS at {largest:,} items (MiB)", scale[largest]["rss_kib"] / 1024, "< 150", scale[largest]["rss_kib"] / 1024 < 150),
        *([(f"daemon RSS at {largest:,} items after ls of 100,000 (MiB)", scale[largest]["rss_after_ls_kib"] / 1024, "< 150",
            scale[largest]["rss_after_ls_kib"] / 1024 < 150)] if "rss_after_ls_kib" in scale[largest] else []),
        (f"ls of 10,000 accounts at {largest:,} items (s)", scale[largest]["ls_10000_s"]["median"], "< 0.1", scale[largest]["ls_10000_s"]["median"] < 0.1),
        ("device lock in force, 1,000 values cached, from the CLI's start (ms)", results["lock_ms"]["median"], "<= 12", results["lock_ms"]["median"] <= 12),
        ("device lock in force, 1,000 values cached, from the request (ms)", results["lock_socket_ms"]["median"], "<= 5", results["lock_socket_ms"]["median"] <= 5),
    ]
    results["targets"] = [{"figure": f, "value": v, "target": t, "met": m} for f, v, t, m in targets]
    section("Targets (docs/spec.md §7)")
    lines = ["| figure | measured | target | met |", "|---|---|---|---|"]
    for f, v, t, m in targets:
        lines.append(f"| {f} | {v:.2f} | {t} | {'yes' if m else 'no'} |")
    print("\n".join(lines))
    with open(f"{args.results}/latest.json", "w") as out:
        json.dump({"machine": sh(["uname", "-srm"]), "cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "results": results}, out, indent=2, default=str)
    with open(f"{args.results}/latest.md", "w") as out:
        out.write("\n".join(lines) + "\n")
    # Plot: random reads/s against item count, with the anchors as lines.
    data = f"{WORK}/plot.dat"
    with open(data, "w") as out:
        for count in sorted(scale):
            out.write(f"{count} {scale[count]['random_reads']['median']} {hello_loop} {loop['passthrough_ll']['median']} {loop['tmpfs']['median']}\n")
    subprocess.run(["gnuplot", "-e", f"""
        set terminal pngcairo size 900,540 noenhanced; set output '{os.path.abspath(args.results)}/reads-vs-items.png';
        set logscale x; set logscale y; set xlabel 'items in the vault'; set ylabel 'open+read+close per second';
        set title 'keychainfs random reads against item count (anchors: libfuse hello_ll, passthrough_ll, tmpfs)'; set key center right;
        plot '{data}' using 1:2 with linespoints lw 2 title 'keychainfs (random items)',
             '' using 1:3 with lines dt 2 title 'hello_ll (one file)', '' using 1:4 with lines dt 3 title 'passthrough_ll (one file)',
             '' using 1:5 with lines dt 4 title 'tmpfs (one file)'"""], check=False)
finally:
    cleanup()
    subprocess.run(["bash", "-c", "rm -rf /dev/shm/kcfs-bench-*"])
