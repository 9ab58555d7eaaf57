/**
 * The limits on YAML aliases in config files, and the pure check behind the second one.
 *
 * kubeadm's YAML reader accepts anchors and aliases and refuses only "excessive aliasing", so
 * tsadm accepts them too, within two bounds:
 * - MAX_ALIASES alias nodes per document, enforced by js-yaml's documented `maxAliases` load
 *   option (src/config/yaml-docs.ts passes it; a test proves the installed js-yaml honours it);
 * - the value with every alias expanded must be no larger than the largest file tsadm reads
 *   (MAX_EXPANDED_SIZE). A count alone cannot stop a bomb: nine aliases of nine aliases of …
 *   grow exponentially with few aliases. A file without aliases always stays under this bound,
 *   because every node and every character of a value comes from at least one byte of the file.
 */

/** Alias nodes (`*name`) allowed in one document: far more than a hand-written config needs. */
export const MAX_ALIASES = 100;

/** Size the expanded value may reach, as expansionProblem counts it: 1 MiB, the file size cap. */
export const MAX_EXPANDED_SIZE = 1024 * 1024;

/**
 * Why VALUE (as js-yaml returns it, aliases sharing one object) must be refused, or undefined.
 * Size counts one per node plus the characters of every string and key, as if each alias were
 * written out; the walk stops as soon as LIMIT is passed, so it costs at most LIMIT steps.
 */
export function expansionProblem(value: unknown, limit: number): string | undefined {
  // An explicit stack: expanded aliases can nest far deeper than the call stack allows.
  type Frame = { readonly value: unknown } | { readonly leave: object };
  const stack: Frame[] = [{ value }];
  const inPath = new Set<object>();
  let size = 0;
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    if ('leave' in frame) {
      inPath.delete(frame.leave);
      continue;
    }
    const v = frame.value;
    size += 1 + (typeof v === 'string' ? v.length : 0);
    if (size > limit) return `YAML aliases expand this document beyond ${limit} bytes (an alias bomb?); write the values out instead`;
    if (v === null || typeof v !== 'object') continue;
    // An alias inside its own anchor makes a value that contains itself: infinite when expanded.
    if (inPath.has(v)) return 'a YAML alias refers to a node that contains it (a recursive alias)';
    inPath.add(v);
    stack.push({ leave: v });
    if (Array.isArray(v)) {
      for (const item of v) stack.push({ value: item });
    } else {
      for (const [key, item] of Object.entries(v)) {
        size += key.length;
        stack.push({ value: item });
      }
    }
  }
  return undefined;
}
