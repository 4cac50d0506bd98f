#!/usr/bin/env node
/** The `biogate` executable. The Node check comes first: main.js and its dependencies need a current Node. */
import { unsupportedNode } from './node-version.js';

const refused = unsupportedNode(process.versions.node);
if (refused) {
  process.stderr.write(`biogate: ${refused}\n`);
  process.exit(1);
}
const { main } = await import('./main.js');
void main(process.argv.slice(2));
