// An independent re-encoding of a parsed body the way DRF's JSONRenderer writes it (compact,
// non-ASCII raw, U+2028/U+2029 escaped, floats with Python's repr), used to check the bytes.

const FLOAT_FIELDS = new Set(['translation_factor_7']);

function pythonFloat(value: number): string {
  // Enough for the sample's values (2.0, 4.5); a whole number keeps its `.0`.
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

function encode(value: unknown, key: string | null): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return key !== null && FLOAT_FIELDS.has(key) ? pythonFloat(value) : String(value);
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => encode(item, null)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${encode(v, k)}`).join(',')}}`;
}

export function pythonJson(value: unknown): string {
  return encode(value, null)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
