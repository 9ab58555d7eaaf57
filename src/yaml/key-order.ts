/**
 * The order gopkg.in/yaml.v2 writes map keys in (sorter.go keyList.Less). kubeadm's manifests
 * are JSON objects turned into Go maps, so every object comes out in this order.
 */
import type { JsonValue } from '../json.js';

export function sortedKeys(map: Readonly<Record<string, JsonValue | undefined>>): string[] {
  return Object.keys(map).filter((k) => map[k] !== undefined).sort(compareKeys);
}

/**
 * yaml.v2's keyList.Less for string keys: letters compare by code point, a non-letter sorts
 * before a letter, and runs of digits compare as numbers ("a2" < "a10").
 */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  return keyLess(a, b) ? -1 : keyLess(b, a) ? 1 : 0;
}

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;

function keyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = ar[i] as string;
    const bc = br[i] as string;
    if (ac === bc) continue;
    const al = LETTER.test(ac);
    const bl = LETTER.test(bc);
    if (al && bl) return (ac.codePointAt(0) ?? 0) < (bc.codePointAt(0) ?? 0);
    if (al || bl) return bl;
    let an = 0;
    let bn = 0;
    if (ac === '0' || bc === '0') {
      for (let j = i - 1; j >= 0 && DIGIT.test(ar[j] as string); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && DIGIT.test(ar[ai] as string); ai++) an = an * 10 + ((ar[ai] as string).codePointAt(0) ?? 48) - 48;
    let bi = i;
    for (; bi < br.length && DIGIT.test(br[bi] as string); bi++) bn = bn * 10 + ((br[bi] as string).codePointAt(0) ?? 48) - 48;
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return (ac.codePointAt(0) ?? 0) < (bc.codePointAt(0) ?? 0);
  }
  return ar.length < br.length;
}
