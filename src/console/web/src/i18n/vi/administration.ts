import type { Messages } from '../messages.js';
import type { EN_ADMINISTRATION } from '../en/administration.js';

export const VI_ADMINISTRATION: Messages<typeof EN_ADMINISTRATION> = {};
