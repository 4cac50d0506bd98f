#!/usr/bin/env bash
# Starts a MongoDB-compatible test server (mongo-java-server, in-memory backend) on a free
# loopback port for the store contract suite, and prints, on stdout, three lines to eval:
#   BIOGATE_TEST_MONGO_URL=mongodb://127.0.0.1:PORT/biogate_test
#   BIOGATE_TEST_MONGO_PIDFILE=/path/to/server.pid
#   BIOGATE_TEST_MONGO_CONTROL=127.0.0.1:PORT2
# The control port takes one command per line: `stop` closes the listening socket and every client
# connection but keeps the data, `start` listens on the same port again, `status` (outage drills,
# test/helpers/mongo-control.ts):
#   exec 3<>/dev/tcp/127.0.0.1/PORT2; echo stop >&3; read -r answer <&3   # → STOPPED
# Everything else (build output, progress) goes to stderr. Stop it with stop.sh PIDFILE.
#
#   eval "$(deploy/test-mongo/start.sh)"
#   BIOGATE_TEST_MONGO_URL=$BIOGATE_TEST_MONGO_URL npx tap test/contract
#   deploy/test-mongo/stop.sh "$BIOGATE_TEST_MONGO_PIDFILE"
#
# Environment: BIOGATE_TEST_MONGO_PORT (default 0 = the kernel picks a free port; picking it in the
# server avoids the check-then-bind race of choosing a number here), BIOGATE_TEST_MONGO_STATE
# (directory for the pid file and log; default a fresh mktemp dir), BIOGATE_TEST_MONGO_WAIT
# (seconds to wait for the server, default 60), BIOGATE_TEST_MONGO_OWNER_PID (optional: the server exits
# when that process is gone, e.g. a test killed by its timeout before its teardown could stop it),
# BIOGATE_TEST_MONGO_HEAP (the JVM's -Xmx, default 512m: the in-memory backend keeps every database it
# was given, so a benchmark run, `npm run bench -- --store …`, wants a few GB and a fresh server per scenario).
# Needs Java 17+ and Maven (artifacts cached in ~/.m2).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
target="$here/target"
port="${BIOGATE_TEST_MONGO_PORT:-0}"
wait_s="${BIOGATE_TEST_MONGO_WAIT:-60}"
state="${BIOGATE_TEST_MONGO_STATE:-$(mktemp -d "${TMPDIR:-/tmp}/biogate-test-mongo.XXXXXX")}"
mkdir -p "$state" "$target/classes"

# Build once: resolve the classpath (Maven caches the jars in ~/.m2) and compile the launcher.
# Rebuilt only when pom.xml or the launcher source is newer than the outputs.
if [[ ! -s "$target/classpath.txt" || "$here/pom.xml" -nt "$target/classpath.txt" ]]; then
  echo "test-mongo: resolving dependencies with Maven" >&2
  mvn -q -B -f "$here/pom.xml" dependency:build-classpath -Dmdep.outputFile="$target/classpath.txt" >&2
fi
classpath="$(cat "$target/classpath.txt")"
class_file="$target/classes/TestMongoServer.class"
if [[ ! -f "$class_file" || "$here/TestMongoServer.java" -nt "$class_file" || "$target/classpath.txt" -nt "$class_file" ]]; then
  echo "test-mongo: compiling TestMongoServer.java" >&2
  javac -nowarn -cp "$classpath" -d "$target/classes" "$here/TestMongoServer.java" >&2
fi

log="$state/server.log"
pidfile="$state/server.pid"
: >"$log" # exists before the background job opens it, so the wait loop can read it at once
nohup java -Xmx"${BIOGATE_TEST_MONGO_HEAP:-512m}" -cp "$target/classes:$classpath" TestMongoServer 127.0.0.1 "$port" >"$log" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$pidfile"

# Wait for the launcher's LISTENING and CONTROL lines, then for the port to accept a TCP connection.
bound=""
for ((i = 0; i < wait_s * 10; i++)); do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "test-mongo: server exited during startup; log follows" >&2
    cat "$log" >&2
    rm -f "$pidfile"
    exit 1
  fi
  bound="$(sed -n 's/^LISTENING \(.*\)$/\1/p' "$log" | head -n 1)"
  control="$(sed -n 's/^CONTROL \(.*\)$/\1/p' "$log" | head -n 1)"
  if [[ -n "$bound" && -n "$control" ]] && (exec 3<>"/dev/tcp/${bound%:*}/${bound##*:}") 2>/dev/null; then
    break
  fi
  bound=""
  sleep 0.1
done
if [[ -z "$bound" ]]; then
  echo "test-mongo: server did not accept connections within ${wait_s}s; log follows" >&2
  cat "$log" >&2
  kill "$pid" 2>/dev/null || true
  rm -f "$pidfile"
  exit 1
fi

echo "test-mongo: mongo-java-server pid $pid listening on $bound, control port $control (log $log)" >&2
echo "BIOGATE_TEST_MONGO_URL=mongodb://$bound/biogate_test"
echo "BIOGATE_TEST_MONGO_PIDFILE=$pidfile"
echo "BIOGATE_TEST_MONGO_CONTROL=$control"
