/**
 * `npm run build` step (after tsc): puts Redoc's standalone bundle into dist/docs-assets/ so the
 * built package serves GET /api/docs without node_modules/redoc (a dev dependency).
 */
import { copyRedocBundle } from './docs.js';

process.stdout.write(`API reference renderer copied to ${copyRedocBundle()}\n`);
