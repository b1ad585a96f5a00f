/**
 * Splits one line of documentation shell into words, the way sh would for the plain lines the README and
 * `demo` print: blanks separate words, double quotes group them, `\` continues a line, `#` starts a comment.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quoted = false;
  for (const char of line.replace(/\\\n/g, ' ')) {
    if (quoted) {
      if (char === '"') quoted = false;
      else word += char;
    } else if (char === '"') {
      quoted = true;
      word ??= '';
    } else if (char === '#' && word === null) {
      break;
    } else if (/\s/.test(char)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + char;
    }
  }
  if (quoted) throw new Error(`unbalanced quote in: ${line}`);
  if (word !== null) words.push(word);
  return words;
}

/** The loyalty-sync arguments of a documented `npx loyalty-sync …` line, or null for any other line. */
export function loyaltySyncArgs(line: string): string[] | null {
  const words = shellWords(line);
  return words[0] === 'npx' && words[1] === 'loyalty-sync' ? words.slice(2) : null;
}
