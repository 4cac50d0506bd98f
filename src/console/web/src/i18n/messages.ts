/** A namespace's messages in another language: exactly the English namespace's ids (TypeScript checks it). */
export type Messages<T> = { readonly [K in keyof T]: string };
