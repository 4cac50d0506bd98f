import type { Messages } from '../messages.js';
import type { EN_ADMINISTRATION } from '../en/administration.js';

export const ES_ADMINISTRATION: Messages<typeof EN_ADMINISTRATION> = {};
