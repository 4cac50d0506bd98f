/**
 * The console's colour theme: light, dark, or the browser's preference ("System", the default). A choice other than
 * System is kept in this browser's localStorage (not a secret; the token stays in sessionStorage alone), and the
 * page follows a change of the system preference while System is chosen. app.css holds the two palettes.
 */
import { useState } from 'preact/hooks';
import { t, type MessageId } from './i18n/index.js';

export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'biogate.console.theme';
const CHOICES: readonly (readonly [ThemeChoice, MessageId])[] = [
  ['system', 'theme.system'],
  ['light', 'theme.light'],
  ['dark', 'theme.dark'],
];

const prefersDark = () => window.matchMedia('(prefers-color-scheme: dark)');

function stored(): ThemeChoice {
  const v = localStorage.getItem(KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

function apply(choice: ThemeChoice): void {
  const dark = choice === 'dark' || (choice === 'system' && prefersDark().matches);
  document.documentElement.dataset['theme'] = dark ? 'dark' : 'light';
}

/** At start: the stored choice now, and the system's preference whenever it changes. */
export function followTheme(): void {
  apply(stored());
  prefersDark().addEventListener('change', () => apply(stored()));
}

/** The header's theme switch. */
export function ThemeSwitch() {
  const [choice, setChoice] = useState<ThemeChoice>(stored);
  const choose = (next: ThemeChoice) => {
    if (next === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, next);
    setChoice(next);
    apply(next);
  };
  return (
    <span class="theme">
      <label for="theme-choice">{t('theme.label')}</label>
      <select id="theme-choice" value={choice} onChange={(e) => choose((e.currentTarget as HTMLSelectElement).value as ThemeChoice)}>
        {CHOICES.map(([value, label]) => (
          <option key={value} value={value}>
            {t(label)}
          </option>
        ))}
      </select>
    </span>
  );
}
