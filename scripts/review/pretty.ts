// The JSON text-conversion diff driver's conversion: a compact answer rewritten one value per
// line, its tokens kept as they are (`2.0` stays `2.0`), so that `git diff` shows the field that
// changed. It must stay self-contained (no imports, no helpers, no closures): `npm run setup-git`
// writes its source into the driver's command, run by plain node.

export function prettyJson(text: string): string {
  let out = '';
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (inString) {
      out += char;
      if (char === '\\') {
        index++;
        out += text[index] ?? '';
      } else if (char === '"') {
        inString = false;
      }
      continue;
    }
    const next = text[index + 1];
    if (char === '"') {
      inString = true;
      out += char;
    } else if ((char === '{' && next === '}') || (char === '[' && next === ']')) {
      out += char + next;
      index++;
    } else if (char === '{' || char === '[') {
      depth++;
      out += `${char}\n${'  '.repeat(depth)}`;
    } else if (char === '}' || char === ']') {
      depth--;
      out += `\n${'  '.repeat(Math.max(depth, 0))}${char}`;
    } else if (char === ',') {
      out += `,\n${'  '.repeat(depth)}`;
    } else if (char === ':') {
      out += ': ';
    } else if (char !== ' ' && char !== '\n' && char !== '\r' && char !== '\t') {
      out += char;
    }
  }
  return out.endsWith('\n') ? out : `${out}\n`;
}
