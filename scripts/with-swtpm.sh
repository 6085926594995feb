#!/usr/bin/env bash
# scripts/with-swtpm.sh [--port N] -- COMMAND [ARG]...: runs COMMAND with a TPM 2.0 simulator (Debian's
# swtpm) on 127.0.0.1, its state in a fresh directory, and KEYCHAINFS_TPM_TCTI and TPM2TOOLS_TCTI naming it;
# stops it and removes its state after, whatever COMMAND did, and exits with COMMAND's status (docs/tpm.md).
# Without --port, the first free port from 2321 up (each swtpm takes N and N+1).
set -euo pipefail
port=
if [[ ${1:-} == --port ]]; then port=$2; shift 2; fi
[[ ${1:-} == -- ]] && shift
[[ $# -gt 0 ]] || { echo "usage: scripts/with-swtpm.sh [--port N] -- COMMAND [ARG]..." >&2; exit 64; }
command -v swtpm >/dev/null || { echo "swtpm is missing: scripts/install-deps.sh installs it" >&2; exit 1; }
free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && ! (exec 3<>"/dev/tcp/127.0.0.1/$(($1 + 1)))") 2>/dev/null; }
if [[ -z $port ]]; then
  port=2321
  for _ in $(seq 1 50); do free "$port" && break; port=$((port + 2)); done
fi
state=$(mktemp -d "${TMPDIR:-/tmp}/swtpm.XXXXXX")
swtpm socket --tpm2 --tpmstate "dir=$state" --flags not-need-init,startup-clear \
  --server "type=tcp,port=$port,bindaddr=127.0.0.1" --ctrl "type=tcp,port=$((port + 1)),bindaddr=127.0.0.1" \
  --pid "file=$state/pid" > "$state/log" 2>&1 &
pid=$!
trap 'kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$state"' EXIT
# Ready when it writes its pid file (10 s at most).
for _ in $(seq 1 100); do [[ -s $state/pid ]] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
[[ -s $state/pid ]] || { cat "$state/log" >&2; echo "swtpm did not start on 127.0.0.1:$port" >&2; exit 1; }
export KEYCHAINFS_TPM_TCTI="swtpm:host=127.0.0.1,port=$port" TPM2TOOLS_TCTI="swtpm:host=127.0.0.1,port=$port"
status=0
"$@" || status=$?
exit "$status"
