/** The languages of the console, their catalogs, and the choice from the browser's preferences (no DOM, no JSX). */
import { EN, type Catalog } from './en.js';
import { ES } from './es.js';
import { VI } from './vi.js';

export type Language = 'en' | 'es' | 'vi';

/** Each language with its own name for itself. */
export const LANGUAGES: readonly (readonly [Language, string])[] = [
  ['en', 'English'],
  ['es', 'Español'],
  ['vi', 'Tiếng Việt'],
];
export const CATALOGS: Readonly<Record<Language, Catalog>> = { en: EN, es: ES, vi: VI };

export const isLanguage = (v: string | null): v is Language => v === 'en' || v === 'es' || v === 'vi';

/** The first of `preferred` (BCP 47 tags, as navigator.languages) the console has, by its primary subtag; else English. */
export function pickLanguage(preferred: readonly string[]): Language {
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split('-')[0] ?? '';
    if (isLanguage(primary)) return primary;
  }
  return 'en';
}
