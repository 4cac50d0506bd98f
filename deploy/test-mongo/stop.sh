#!/usr/bin/env bash
# Stops the server that start.sh started: stop.sh PIDFILE. Sends SIGTERM (the launcher's shutdown
# hook closes the server), waits up to 10 s, then SIGKILL. Only signals the pid in the file, and only
# when that process is still our launcher (a recycled pid is left alone). Idempotent.
set -euo pipefail

pidfile="${1:?usage: stop.sh PIDFILE}"
[[ -f "$pidfile" ]] || { echo "test-mongo: $pidfile not found (already stopped?)" >&2; exit 0; }
pid="$(cat "$pidfile")"
if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q TestMongoServer; then
  kill -TERM "$pid"
  for ((i = 0; i < 100; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "test-mongo: pid $pid ignored SIGTERM; killing" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  echo "test-mongo: stopped pid $pid" >&2
else
  echo "test-mongo: pid $pid is not running a TestMongoServer; nothing to stop" >&2
fi
rm -f "$pidfile"
