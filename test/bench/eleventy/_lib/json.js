// The API's JSON is Python's (Django REST Framework's): compact, like JSON.stringify, but a float
// field keeps its decimal point (`2.0`) and U+2028/U+2029 are escaped.

const FLOAT = '\u0000float:';

/** A number to be written as Python writes a float; the values of the catalogue are plain decimals. */
export function float(value) {
  return value === null ? null : `${FLOAT}${Number.isInteger(value) ? value.toFixed(1) : String(value)}`;
}

export function toJson(value) {
  return JSON.stringify(value)
    .replace(/"\\u0000float:([^"]*)"/g, '$1')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Code-point order, then id: how the database orders; `null` sorts after every value. */
export function byFields(...fields) {
  return (a, b) => {
    for (const field of [...fields, 'id']) {
      const descending = field.startsWith('-');
      const name = descending ? field.slice(1) : field;
      const [x, y] = [a[name] ?? null, b[name] ?? null];
      if (x === y) continue;
      const order = x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;
      return descending ? -order : order;
    }
    return 0;
  };
}
