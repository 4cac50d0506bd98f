// Record and field splitting shared by both generations [PUSH-v2 §2.3–§2.4, PUSH-v3 §1.4].

/** [PUSH-v2 §2.3] split on LF, strip one trailing CR, skip empty (or blank) lines. */
export function splitLines(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.split('\n')) {
    const line = piece.endsWith('\r') ? piece.slice(0, -1) : piece;
    if (line.trim() !== '') out.push(line);
  }
  return out;
}

export interface Fields {
  readonly fields: string[];
  /** true when the line had no TAB and was split on runs of spaces [PUSH-v2 §2.4] */
  readonly spaced: boolean;
}

/**
 * [PUSH-v2 §2.4] TAB-separated fields; empty fields stay, one final empty field from a trailing TAB is
 * dropped. A line without any TAB falls back to runs of spaces (vendor PDFs, third-party tools).
 */
export function splitFields(line: string): Fields {
  if (line.includes('\t')) {
    const fields = line.split('\t');
    if (fields.length > 1 && fields[fields.length - 1] === '') fields.pop();
    return { fields, spaced: false };
  }
  const trimmed = line.trim();
  return { fields: trimmed === '' ? [] : trimmed.split(/ +/), spaced: true };
}

/** Cut a raw line for a log sample. */
export function sample(line: string): string {
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
