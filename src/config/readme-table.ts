/** Renders the README configuration table from the schema (the one source of truth). */
import { SETTINGS } from './schema.js';

function show(value: unknown): string {
  if (value === null || value === undefined) return '(unset)';
  return `\`${String(value)}\``;
}

export function configTableMarkdown(): string {
  const rows = Object.values(SETTINGS).map(({ schema, meta }) => {
    const def = (schema as { default?: unknown }).default;
    return `| \`${meta.env}\` | ${show(def)} | ${meta.unit} | ${meta.description.replaceAll('|', '\\|')} |`;
  });
  return ['| Variable | Default | Unit | Description |', '|---|---|---|---|', ...rows].join('\n');
}
