import type { ApiRecord } from '../db/upsertRecords.js';
import { listedPaths, type StreamDefinition } from '../streams/index.js';
import { driftExample } from './example.js';
import type { DriftFinding, DriftKind } from './types.js';

/**
 * Distinct key lists remembered per object position. Records of one stream come in a handful of
 * shapes (optional fields make a few more); the bound keeps a pathological API from growing the cache.
 */
const MAX_SHAPES_PER_OBJECT = 256;

/** One object position of the declaration, e.g. the record itself or its `customer`. */
interface ShapeNode {
  /** Dotted path of the object, with a trailing dot ('' for the record). */
  prefix: string;
  /** The listed keys at this position. */
  listed: Set<string>;
  /** Listed keys whose own members are listed too: the only ones descended into. */
  objects: Array<[key: string, node: ShapeNode]>;
  /** Key list (joined) → its unlisted keys. */
  shapes: Map<string, readonly string[]>;
  /** The key list met last and its unlisted keys: most records repeat the previous one's shape. */
  lastKeys: string[];
  lastUnlisted: readonly string[];
}

interface EnumCheck {
  path: readonly string[];
  dotted: string;
  values: ReadonlySet<unknown>;
}

/** Finds the schema drift in a batch of a stream's records. */
export type DriftDetector = (records: readonly ApiRecord[]) => DriftFinding[];

/**
 * Builds the drift check of one stream from its declaration (src/streams). Per record it compares each
 * object's key list with the one met before at that position (a few string comparisons), looks new key
 * lists up once, and descends only into objects whose members the spec lists; values are never compared,
 * except those of the enums. Keep one detector per stream for as long as pages come: it learns the shapes.
 */
export function createDriftDetector(stream: StreamDefinition): DriftDetector {
  const root = shapeTree(listedPaths(stream));
  const enums: EnumCheck[] = Object.entries(stream.enums ?? {}).map(([dotted, values]) => ({ path: dotted.split('.'), dotted, values: new Set(values) }));

  return (records) => {
    const found = new Map<string, DriftFinding>();
    const note = (kind: DriftKind, path: string, value: unknown, identity: string): void => {
      const finding = found.get(identity);
      if (finding !== undefined) finding.count += 1;
      else found.set(identity, { stream: stream.name, kind, path, example: driftExample(value), count: 1 });
    };
    for (const record of records) {
      checkObject(record, root, note);
      for (const check of enums) {
        const value = valueAt(record, check.path);
        if (value !== undefined && value !== null && !check.values.has(value)) note('enum_value', check.dotted, value, `enum\n${check.dotted}\n${String(value)}`);
      }
    }
    return [...found.values()];
  };
}

type Note = (kind: DriftKind, path: string, value: unknown, identity: string) => void;

function checkObject(object: Record<string, unknown>, node: ShapeNode, note: Note): void {
  for (const key of unlistedKeys(object, node)) {
    const path = node.prefix + key;
    note('field', path, object[key], path);
  }
  for (const [key, child] of node.objects) {
    const value = object[key];
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) checkObject(value as Record<string, unknown>, child, note);
  }
}

/** The object's keys that the spec does not list at this position. */
function unlistedKeys(object: Record<string, unknown>, node: ShapeNode): readonly string[] {
  // The common case allocates nothing: the same keys in the same order as the previous object here.
  const last = node.lastKeys;
  let i = 0;
  let same = true;
  for (const key in object) {
    if (key !== last[i]) {
      same = false;
      break;
    }
    i += 1;
  }
  if (same && i === last.length) return node.lastUnlisted;
  const keys = Object.keys(object);
  const signature = keys.join('\n');
  let unlisted = node.shapes.get(signature);
  if (unlisted === undefined) {
    unlisted = keys.filter((key) => !node.listed.has(key));
    if (node.shapes.size < MAX_SHAPES_PER_OBJECT) node.shapes.set(signature, unlisted);
  }
  node.lastKeys = keys;
  node.lastUnlisted = unlisted;
  return unlisted;
}

/** The tree of object positions that the listed paths describe. */
function shapeTree(paths: readonly string[]): ShapeNode {
  const root = newNode('');
  for (const path of paths) {
    let node = root;
    const keys = path.split('.');
    keys.forEach((key, depth) => {
      node.listed.add(key);
      if (depth === keys.length - 1) return;
      let child = node.objects.find(([listed]) => listed === key)?.[1];
      if (child === undefined) {
        child = newNode(`${node.prefix}${key}.`);
        node.objects.push([key, child]);
      }
      node = child;
    });
  }
  return root;
}

function newNode(prefix: string): ShapeNode {
  return { prefix, listed: new Set(), objects: [], shapes: new Map(), lastKeys: [], lastUnlisted: [] };
}

function valueAt(record: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = record;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
