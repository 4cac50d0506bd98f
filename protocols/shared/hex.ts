// Hex parameters [COMMANDS §3.1]: two upper-case digits per byte, concatenated.

/** `%02X` of one byte; undefined outside 0–255. */
export function hexByte(value: number): string | undefined {
  if (!Number.isInteger(value) || value < 0 || value > 255) return undefined;
  return value.toString(16).toUpperCase().padStart(2, '0');
}

/** Bytes → upper-case hex. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += (b < 16 ? '0' : '') + b.toString(16).toUpperCase();
  return out;
}

/** Hex text (even length) → bytes, undefined when malformed. */
export function fromHex(text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** [COMMANDS §3.2] v3 AuthorizeDoorId: door 1 = 1, door 2 = 2, door 3 = 4, door 4 = 8. */
export function doorMask(doors: readonly number[]): number {
  let mask = 0;
  for (const door of doors) mask |= 2 ** (door - 1);
  return mask;
}
