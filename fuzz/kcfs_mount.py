"""A throwaway vault mounted by the real keychainfs binary, and deadlines on every filesystem call.

A call that outlives its deadline aborts the FUSE connection (/sys/fs/fuse/connections/N/abort), which
fails every request in flight, so a hung daemon never hangs the run: the caller reports the hang.
"""
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time


class Hang(Exception):
    """An operation did not return within its deadline (the connection was aborted to end it)."""


class Deadlines:
    """Runs calls on a worker thread and waits for each at most `seconds`."""

    def __init__(self, mount, seconds):
        self.mount, self.seconds = mount, seconds
        self.requests, self.answers = queue.Queue(), queue.Queue()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            fn, args = self.requests.get()
            try:
                self.answers.put((True, fn(*args)))
            except BaseException as error:  # noqa: B902 - handed back to the caller as is
                self.answers.put((False, error))

    def call(self, fn, *args):
        self.requests.put((fn, args))
        try:
            ok, value = self.answers.get(timeout=self.seconds)
        except queue.Empty:
            self.mount.abort_connection()
            raise Hang(f"{getattr(fn, '__name__', fn)}{args!r} did not return within {self.seconds}s")
        if ok:
            return value
        raise value


class Mount:
    """`keychainfs init --test-device` + `keychainfs mount`; close() always leaves no mount behind."""

    def __init__(self, binary, root=None):
        self.binary = binary
        self.root = root or tempfile.mkdtemp(prefix="kcfs-fuzz-")
        self.vault, self.path = self.root + "/vault", self.root + "/mnt"
        self.cli("init", self.vault, "--test-device")
        self.cli("mount", self.vault, self.path, timeout=30)
        self.connection = os.minor(os.stat(self.path).st_dev)
        self.daemon_pid = self._daemon_pid()

    def cli(self, *args, stdin=None, timeout=30, check=True):
        result = subprocess.run([self.binary, *args], input=stdin, capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise RuntimeError(f"keychainfs {' '.join(args)}: exit {result.returncode}: {result.stderr.strip()}")
        return result

    def device(self, *args, passcode=None, check=True):
        extra = ["--passcode-stdin"] if passcode is not None else []
        return self.cli("device", *args, "--mount", self.path, *extra,
                        stdin=None if passcode is None else passcode + "\n", check=check)

    def _daemon_pid(self):
        for line in self.device("status").stdout.splitlines():
            key, _, value = line.partition(":")
            if key.strip().lower() == "pid":
                return int(value.strip())
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    cmdline = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
                except OSError:
                    continue
                if self.path.encode() in cmdline and b"mount" in cmdline:
                    return int(pid)
        return None

    def daemon_alive(self):
        if self.daemon_pid is None:
            return True
        try:
            state = open(f"/proc/{self.daemon_pid}/stat").read().split(")")[-1].split()[0]
        except OSError:
            return False
        return state != "Z"

    def is_mounted(self):
        with open("/proc/self/mounts") as mounts:
            return any(line.split()[1] == self.path for line in mounts if len(line.split()) > 2)

    def abort_connection(self):
        connections = "/sys/fs/fuse/connections"
        if not os.listdir(connections):
            subprocess.run(["mount", "-t", "fusectl", "fusectl", connections], capture_output=True, timeout=5)
        try:
            with open(f"{connections}/{self.connection}/abort", "w") as abort:
                abort.write("1")
        except OSError:
            pass

    def close(self, keep_root=False):
        if self.is_mounted():
            try:
                self.cli("unmount", self.path, timeout=15, check=False)
            except subprocess.TimeoutExpired:
                pass
        if self.is_mounted():
            self.abort_connection()
            subprocess.run(["umount", "-l", self.path], capture_output=True, timeout=10)
            subprocess.run(["fusermount3", "-u", "-z", self.path], capture_output=True, timeout=10)
        if self.daemon_pid and self.daemon_alive():
            deadline = time.time() + 5
            while self.daemon_alive() and time.time() < deadline:
                time.sleep(0.05)
            if self.daemon_alive():
                os.kill(self.daemon_pid, signal.SIGKILL)
        if not keep_root:
            shutil.rmtree(self.root, ignore_errors=True)
