/** The terminal pages' messages in English (see ../en.ts). */
export const EN_TERMINAL = {} as const;
