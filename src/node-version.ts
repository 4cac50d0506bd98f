/**
 * The Node versions BioGate runs on: package.json's "engines" (a test keeps the two equal). Checked by the
 * executable before anything else loads, so an old Node (Debian 12's /usr/bin/node is 18) gets one clear
 * line instead of a syntax or API error from deep inside a dependency.
 */
export const MIN_NODE = { major: 20, minor: 19 } as const;

/** Why `version` ("20.19.1") cannot run BioGate, or null when it can. */
export function unsupportedNode(version: string): string | null {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > MIN_NODE.major || (major === MIN_NODE.major && minor >= MIN_NODE.minor)) return null;
  return (
    `Node ${version} is not supported: BioGate needs Node ${MIN_NODE.major}.${MIN_NODE.minor} or newer ` +
    `(this is ${process.execPath}; install a current Node LTS and point the service at it, see deploy/README.md "Without containers")`
  );
}

/**
 * Why the SQLite store cannot run on Node `version`, or null when it can. better-sqlite3 12, the last release for
 * Node 20, aborts Node 24 and later (`Assertion failed: (env) != nullptr` in RemoveEnvironmentCleanupHook) when the
 * garbage collector frees a prepared statement: Node 24's ObjectWrap registers a cleanup hook its destructor removes.
 * better-sqlite3 13 (Node-API) fixes it and needs Node 22, so it comes when BioGate leaves Node 20.
 */
export function sqliteUnsupportedNode(version: string): string | null {
  const [major = 0] = version.split('.').map(Number);
  if (major < 24) return null;
  return (
    `the SQLite store cannot run on Node ${version}: better-sqlite3 12 aborts the process on Node 24 and later when a ` +
    'prepared statement is garbage-collected. Run BioGate on Node 20 or 22 (the container image uses 22), or use a ' +
    'MongoDB store (BIOGATE_STORE=mongodb://…)'
  );
}
