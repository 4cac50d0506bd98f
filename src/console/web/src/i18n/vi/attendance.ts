import type { Messages } from '../messages.js';
import type { EN_ATTENDANCE } from '../en/attendance.js';

export const VI_ATTENDANCE: Messages<typeof EN_ATTENDANCE> = {};
