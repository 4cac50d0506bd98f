import type { Messages } from '../messages.js';
import type { EN_OPERATIONS } from '../en/operations.js';

export const VI_OPERATIONS: Messages<typeof EN_OPERATIONS> = {};
