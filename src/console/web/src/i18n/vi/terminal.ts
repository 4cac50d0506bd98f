import type { Messages } from '../messages.js';
import type { EN_TERMINAL } from '../en/terminal.js';

export const VI_TERMINAL: Messages<typeof EN_TERMINAL> = {};
