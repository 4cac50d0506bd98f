// Integer fields. Devices send decimal integers, sometimes signed (`Return=-1002`), sometimes padded.

const INT = /^[+-]?\d{1,15}$/;

/** A decimal integer, or null when empty / absent / not an integer. */
export function intOrNull(value: string | undefined): number | null {
  if (value === undefined) return null;
  // fast path for the common short unsigned value (hot in attendance uploads)
  if (value.length > 0 && value.length < 10) {
    let n = 0;
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return slow(value);
      n = n * 10 + c;
    }
    return n;
  }
  return slow(value);
}

function slow(value: string): number | null {
  const text = value.trim();
  return INT.test(text) ? Number(text) : null;
}

/** 'true'-ish flag fields (`1`), null when empty or absent. */
export function flagOrNull(value: string | undefined): boolean | null {
  const n = intOrNull(value);
  return n === null ? null : n !== 0;
}
