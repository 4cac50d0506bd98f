/**
 * The console's language: English, Spanish or Vietnamese, the first of the browser's languages (navigator.languages)
 * that the console has, unless one was chosen with the header's switch (kept in localStorage, like the theme).
 * Messages are ICU MessageFormat, formatted by intl-messageformat (FormatJS) with the language's plural rules; a
 * message's formatter is made once per language. <html lang> follows the choice, so screen readers speak it right.
 */
import { IntlMessageFormat } from 'intl-messageformat';
import { useEffect, useState } from 'preact/hooks';
import { CATALOGS, isLanguage, LANGUAGES, pickLanguage, type Language } from './catalogs.js';
import type { MessageId } from './en.js';

export type { Language } from './catalogs.js';
export type { MessageId } from './en.js';

const KEY = 'biogate.console.language';

let current: Language = 'en';
const listeners = new Set<(l: Language) => void>();
const formatters = new Map<string, IntlMessageFormat>();

/** At start: the stored choice, else the browser's. */
export function followLanguage(): void {
  const stored = localStorage.getItem(KEY);
  setLanguage(isLanguage(stored) ? stored : pickLanguage(navigator.languages), false);
}

export function setLanguage(language: Language, remember = true): void {
  current = language;
  document.documentElement.lang = language;
  if (remember) localStorage.setItem(KEY, language);
  listeners.forEach((l) => l(language));
}

/** The message `id` in the current language, with `values` put in. */
export function t(id: MessageId, values?: Record<string, string | number>): string {
  const key = `${current}\u0000${id}`;
  let f = formatters.get(key);
  if (!f) {
    f = new IntlMessageFormat(CATALOGS[current][id], current);
    formatters.set(key, f);
  }
  return String(f.format(values));
}

/** The current language; the component renders again when it changes. */
export function useLanguage(): Language {
  const [language, set] = useState(current);
  useEffect(() => {
    listeners.add(set);
    return () => void listeners.delete(set);
  }, []);
  return language;
}

/** The header's language switch: each language named in itself. */
export function LanguageSwitch() {
  const language = useLanguage();
  return (
    <span class="theme">
      <label for="language-choice">{t('language.label')}</label>
      <select id="language-choice" value={language} onChange={(e) => setLanguage(e.currentTarget.value as Language)}>
        {LANGUAGES.map(([value, name]) => (
          <option key={value} value={value} lang={value}>
            {name}
          </option>
        ))}
      </select>
    </span>
  );
}
