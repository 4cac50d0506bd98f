/** The attendance pages' messages in English (see ../en.ts). */
export const EN_ATTENDANCE = {} as const;
