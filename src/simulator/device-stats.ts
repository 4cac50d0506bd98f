// The counters a simulated terminal keeps about its own exchanges.

import type { SimulatedDeviceStats } from './types.js';

export function emptyStats(): SimulatedDeviceStats {
  return {
    handshakes: 0,
    handshakeFailures: 0,
    polls: 0,
    commandsReceived: 0,
    commandsByCode: {},
    commandsLost: 0,
    resultsLost: 0,
    wipes: 0,
    resultPosts: 0,
    uploadsSent: 0,
    uploadsAcknowledged: 0,
    uploadsFailed: 0,
    uploadsDropped: 0,
    punches: 0,
    templatesEnrolled: 0,
    errors: 0,
    protocolWarnings: 0,
    lastError: null,
    online: false,
  };
}
