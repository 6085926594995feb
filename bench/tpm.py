#!/usr/bin/env python3
"""bench/tpm.py: unsealing a vault's device key as a mount does (docs/tpm.md) against tpm2-tools on the same
swtpm in the same run, as ratios.

Ours: bench/tools/tpmunseal (the C calls of Sources/KeychainFSCTPM that `keychainfs mount` makes: connect,
create the primary key, start a salted session, load, unseal, disconnect). The references: `tpm2_unseal` of the
same object made persistent (the tool's least work: one command), and the three commands a script needs from the
same files (`tpm2_createprimary`, `tpm2_load`, `tpm2_unseal`). Target (docs/tpm.md): at most 1.5x the tool.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time


def timed(command, env, rounds):
    start = time.monotonic()
    for _ in range(rounds):
        subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    return (time.monotonic() - start) / rounds


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
        tpmunseal = os.path.join(args.tools, "tpmunseal")
        subprocess.run([tpmunseal, "seal", tcti, blob], env=env, check=True, timeout=60)
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

        ours = float(subprocess.run([tpmunseal, "unseal", tcti, blob, str(args.rounds)], env=env, check=True,
                                    capture_output=True, text=True, timeout=600).stdout)
        persistent = timed(["tpm2_unseal", "-c", "0x81010001"], env, args.rounds)

        start = time.monotonic()
        for _ in range(args.rounds):
            for command in (primary, flush, load, flush, ["tpm2_unseal", "-c", os.path.join(state, "key.ctx")],
                            flush):
                tool(*command)
        from_files = (time.monotonic() - start) / args.rounds

        lines = [
            f"unseal the device key, mean of {args.rounds} on one swtpm (ours in one process, as a mount makes the"
            " calls; each tool a command, as a script runs it):",
            f"  keychainfs (connect, primary, salted session, load, unseal): {ours * 1000:.2f} ms",
            f"  tpm2_unseal of a persistent object:                           {persistent * 1000:.2f} ms"
            f"  ratio {ours / persistent:.2f}x (target <= 1.5x)",
            f"  tpm2-tools from the same files (createprimary, load, unseal):  {from_files * 1000:.2f} ms"
            f"  ratio {ours / from_files:.2f}x",
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
