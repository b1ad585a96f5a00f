/**
 * Where the write inbox lives under the state's prefix: files to queue are put at inbox/KIND/NAME.csv,
 * a refused file's problems are written beside it as inbox/KIND/NAME.errors.txt, and an imported file's
 * outcome at outbox/KIND/NAME.results.csv. NAME may hold folders of its own.
 */
export const INBOX_FOLDER = 'inbox/';
const OUTBOX_FOLDER = 'outbox/';
const ERRORS_SUFFIX = '.errors.txt';

/** A file of the inbox, by its kind folder (as found: it may name no kind) and its name without `.csv`. */
export interface InboxName {
  kind: string;
  name: string;
}

export type InboxPathShape = { shape: 'file'; place: InboxName } | { shape: 'own' } | { shape: 'other' };

/**
 * What a path listed under inbox/ is: a file to import, one this program wrote there (an errors file, or a
 * folder marker a console made), or anything else, which is left alone.
 */
export function inboxPathShape(path: string): InboxPathShape {
  if (!path.startsWith(INBOX_FOLDER)) return { shape: 'other' };
  const rest = path.slice(INBOX_FOLDER.length);
  if (rest === '' || rest.endsWith('/') || rest.endsWith(ERRORS_SUFFIX)) return { shape: 'own' };
  const slash = rest.indexOf('/');
  if (slash <= 0 || !rest.endsWith('.csv')) return { shape: 'other' };
  const name = rest.slice(slash + 1, -'.csv'.length);
  if (name === '' || name.endsWith('/')) return { shape: 'other' };
  return { shape: 'file', place: { kind: rest.slice(0, slash), name } };
}

export function inboxPath(place: InboxName): string {
  return `${INBOX_FOLDER}${place.kind}/${place.name}.csv`;
}

export function errorsPath(place: InboxName): string {
  return `${INBOX_FOLDER}${place.kind}/${place.name}${ERRORS_SUFFIX}`;
}

export function resultsPath(place: InboxName): string {
  return `${OUTBOX_FOLDER}${place.kind}/${place.name}.results.csv`;
}
