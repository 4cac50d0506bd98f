/** The administration pages' messages in English (see ../en.ts). */
export const EN_ADMINISTRATION = {} as const;
