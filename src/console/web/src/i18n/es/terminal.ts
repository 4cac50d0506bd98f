import type { Messages } from '../messages.js';
import type { EN_TERMINAL } from '../en/terminal.js';

export const ES_TERMINAL: Messages<typeof EN_TERMINAL> = {};
