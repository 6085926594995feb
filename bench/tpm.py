#!/usr/bin/env python3
"""bench/tpm.py: the TPM calls of keychainfs (docs/tpm.md) against tpm2-tools on the same swtpm in the same
run, as ratios: unsealing the device key as a mount does, and a Secure Enclave key's signature and ECDH.

Ours: bench/tools/tpmcalls (the C calls of Sources/KeychainFSCTPM as the daemon makes them, each call: connect,
create the primary key, start a salted session, load, act, disconnect). The references: `tpm2_unseal`,
`tpm2_sign` and `tpm2_ecdhzgen` of the same objects made persistent (the tool's least work: one command each),
and for the unseal also the three commands a script needs from the files (`tpm2_createprimary`, `tpm2_load`,
`tpm2_unseal`). Target (docs/tpm.md): at most 1.5x the tool.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time


def timed(command, env, rounds):
    """The mean time of `command`; between runs, untimed, what tpm2-tools leave loaded without a resource
    manager (transient objects, sessions) is flushed."""
    total = 0.0
    for _ in range(rounds):
        start = time.monotonic()
        run = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             timeout=60)
        total += time.monotonic() - start
        if run.returncode != 0:
            sys.exit(f"{command[0]} failed: {run.stderr}")
        for kind in ("-t", "-l", "-s"):
            subprocess.run(["tpm2_flushcontext", kind], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
    return total / rounds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", required=True, help="where bench/run built tpmunseal")
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--results", default="bench/results")
    args = parser.parse_args()
    state = tempfile.mkdtemp(prefix="bench-swtpm.")
    socket = os.path.join(state, "tpm.sock")
    swtpm = subprocess.Popen(
        ["swtpm", "socket", "--tpm2", "--tpmstate", f"dir={state}", "--server", f"type=unixio,path={socket}",
         "--ctrl", f"type=unixio,path={socket}.ctrl", "--flags", "not-need-init,startup-clear"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not (os.path.exists(socket) and os.path.exists(socket + ".ctrl")):
            if time.monotonic() > deadline or swtpm.poll() is not None:
                sys.exit("swtpm did not start")
            time.sleep(0.01)
        tcti = f"swtpm:path={socket}"
        env = dict(os.environ, TPM2TOOLS_TCTI=tcti, TSS2_LOG="all+NONE")
        blob = os.path.join(state, "device-key.tpm")
        tpmcalls = os.path.join(args.tools, "tpmcalls")
        subprocess.run([tpmcalls, "seal", tcti, blob], env=env, check=True, timeout=60)
        key_blob = os.path.join(state, "se-key.tpm")
        subprocess.run([tpmcalls, "key", tcti, key_blob], env=env, check=True, timeout=60)
        data = open(blob, "rb").read()
        public = int.from_bytes(data[:2], "big")
        open(os.path.join(state, "key.pub"), "wb").write(data[:2 + public])
        open(os.path.join(state, "key.priv"), "wb").write(data[2 + public:])

        def tool(*command):
            subprocess.run(list(command), env=env, check=True, stdout=subprocess.DEVNULL, timeout=60)

        primary = ["tpm2_createprimary", "-Q", "-C", "o", "-G", "ecc256:aes128cfb", "-g", "sha256",
                   "-a", "restricted|decrypt|fixedtpm|fixedparent|sensitivedataorigin|userwithauth|noda",
                   "-c", os.path.join(state, "primary.ctx")]
        load = ["tpm2_load", "-Q", "-C", os.path.join(state, "primary.ctx"), "-u", os.path.join(state, "key.pub"),
                "-r", os.path.join(state, "key.priv"), "-c", os.path.join(state, "key.ctx")]
        flush = ["tpm2_flushcontext", "-t"]
        tool(*primary); tool(*flush); tool(*load); tool(*flush)
        tool("tpm2_evictcontrol", "-Q", "-C", "o", "-c", os.path.join(state, "key.ctx"), "0x81010001")
        tool(*flush)
        # The Secure Enclave key, persistent for the tools; its own point is the ECDH peer (TPM2B_ECC_POINT).
        data = open(key_blob, "rb").read()
        public = int.from_bytes(data[:2], "big")
        open(os.path.join(state, "se.pub"), "wb").write(data[:2 + public])
        open(os.path.join(state, "se.priv"), "wb").write(data[2 + public:])
        area = data[2:2 + public]
        offset = 8 + 2 + int.from_bytes(area[8:10], "big") + 8  # type, nameAlg, attributes, authPolicy, parameters
        point = area[offset:offset + 68]
        open(os.path.join(state, "peer.point"), "wb").write(len(point).to_bytes(2, "big") + point)
        open(os.path.join(state, "digest"), "wb").write(os.urandom(32))
        tool(*primary); tool(*flush)
        tool("tpm2_load", "-Q", "-C", os.path.join(state, "primary.ctx"), "-u", os.path.join(state, "se.pub"),
             "-r", os.path.join(state, "se.priv"), "-c", os.path.join(state, "se.ctx"))
        tool(*flush)
        tool("tpm2_evictcontrol", "-Q", "-C", "o", "-c", os.path.join(state, "se.ctx"), "0x81010002")
        tool(*flush)

        def ours(mode, path):
            return float(subprocess.run([tpmcalls, mode, tcti, path, str(args.rounds)], env=env, check=True,
                                        capture_output=True, text=True, timeout=600).stdout)

        unseal = ours("unseal", blob)
        persistent = timed(["tpm2_unseal", "-c", "0x81010001"], env, args.rounds)
        sign = ours("sign", key_blob)
        tool_sign = timed(["tpm2_sign", "-c", "0x81010002", "-g", "sha256", "-s", "ecdsa", "-d", "-f", "plain",
                           "-o", os.path.join(state, "signature"), os.path.join(state, "digest")], env, args.rounds)
        ecdh = ours("ecdh", key_blob)
        tool_ecdh = timed(["tpm2_ecdhzgen", "-c", "0x81010002", "-u", os.path.join(state, "peer.point"),
                           "-o", os.path.join(state, "shared")], env, args.rounds)

        start = time.monotonic()
        for _ in range(args.rounds):
            for command in (primary, flush, load, flush, ["tpm2_unseal", "-c", os.path.join(state, "key.ctx")],
                            flush):
                tool(*command)
        from_files = (time.monotonic() - start) / args.rounds

        def row(name, mine, theirs, reference):
            return (f"  {name:<16} keychainfs {mine * 1000:6.2f} ms   {reference} {theirs * 1000:6.2f} ms"
                    f"   ratio {mine / theirs:.2f}x (target <= 1.5x)")

        lines = [
            f"TPM calls, mean of {args.rounds} on one swtpm (ours each a whole call in one process, as the daemon"
            " makes it: connect, primary key, salted session, load, act; each tool a command, as a script runs it):",
            row("unseal at mount", unseal, persistent, "tpm2_unseal (persistent)  "),
            row("SE sign", sign, tool_sign, "tpm2_sign (persistent)    "),
            row("SE ECDH", ecdh, tool_ecdh, "tpm2_ecdhzgen (persistent)"),
            f"  unseal against tpm2-tools from the same files (createprimary, load, unseal): "
            f"{from_files * 1000:.2f} ms, ratio {unseal / from_files:.2f}x",
        ]
        report = "\n".join(lines)
        print(report)
        os.makedirs(args.results, exist_ok=True)
        open(os.path.join(args.results, "tpm.txt"), "w").write(report + "\n")
    finally:
        swtpm.kill()
        swtpm.wait()
        shutil.rmtree(state, ignore_errors=True)


if __name__ == "__main__":
    main()
