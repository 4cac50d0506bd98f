import type { Messages } from '../messages.js';
import type { EN_PEOPLE } from '../en/people.js';

export const VI_PEOPLE: Messages<typeof EN_PEOPLE> = {};
