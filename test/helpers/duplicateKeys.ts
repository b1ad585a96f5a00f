/**
 * The keys that appear more than once in one object of a JSON text, as `path.key`.
 * JSON.parse keeps the last of them silently; strict consumers (log shippers with schemas) reject
 * the whole line, so tests look at the text itself. The text must be valid JSON.
 */
export function duplicateKeys(text: string): string[] {
  const found: string[] = [];
  let at = 0;

  const skipSpace = (): void => {
    while (at < text.length && ' \t\r\n'.includes(text[at])) at += 1;
  };
  const readString = (): string => {
    const start = at;
    at += 1;
    while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at += 1;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const readValue = (path: string): void => {
    skipSpace();
    const first = text[at];
    if (first === '{') {
      at += 1;
      const keys = new Set<string>();
      skipSpace();
      if (text[at] === '}') {
        at += 1;
        return;
      }
      for (;;) {
        skipSpace();
        const key = readString();
        if (keys.has(key)) found.push(path === '' ? key : `${path}.${key}`);
        keys.add(key);
        skipSpace();
        at += 1; // the colon
        readValue(path === '' ? key : `${path}.${key}`);
        skipSpace();
        if (text[at++] === '}') return;
      }
    }
    if (first === '[') {
      at += 1;
      skipSpace();
      if (text[at] === ']') {
        at += 1;
        return;
      }
      for (let index = 0; ; index += 1) {
        readValue(`${path}[${index}]`);
        skipSpace();
        if (text[at++] === ']') return;
      }
    }
    if (first === '"') {
      readString();
      return;
    }
    while (at < text.length && !',}] \t\r\n'.includes(text[at])) at += 1;
  };

  JSON.parse(text);
  readValue('');
  return found;
}
