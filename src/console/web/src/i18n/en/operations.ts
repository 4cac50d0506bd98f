/** The operations pages' messages in English (see ../en.ts). */
export const EN_OPERATIONS = {} as const;
