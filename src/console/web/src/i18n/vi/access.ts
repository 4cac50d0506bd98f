import type { Messages } from '../messages.js';
import type { EN_ACCESS } from '../en/access.js';

export const VI_ACCESS: Messages<typeof EN_ACCESS> = {};
