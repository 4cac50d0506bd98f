/** The access pages' messages in English (see ../en.ts). */
export const EN_ACCESS = {} as const;
