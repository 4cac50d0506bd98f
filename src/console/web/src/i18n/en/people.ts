/** The people pages' messages in English (see ../en.ts). */
export const EN_PEOPLE = {} as const;
