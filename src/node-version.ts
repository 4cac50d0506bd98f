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
