/**
 * The oldest supported Node.js: undici 8 needs 22.19. Node 24 LTS is the runtime of record (the image's);
 * Node 20 reached its end of life in April 2026.
 */
export const OLDEST_SUPPORTED_NODE = { major: 22, minor: 19 } as const;

/** The one sentence that refuses Node.js `version` (as in `process.versions.node`), or undefined when it is supported. */
export function unsupportedNodeMessage(version: string): string | undefined {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const oldest = OLDEST_SUPPORTED_NODE;
  if (major > oldest.major || (major === oldest.major && minor >= oldest.minor)) return undefined;
  return `loyalty-sync needs Node.js ${oldest.major}.${oldest.minor} or newer (24 LTS recommended), but this is Node.js ${version.replace(/^v/, '')}.`;
}
