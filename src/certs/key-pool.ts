/**
 * Per-run key generation ahead of need. RSA generation (OpenSSL's own, which is slower than
 * assembling primes by hand but is the generator with OpenSSL's checks) dominates `certs all`;
 * started together, the keys are made in parallel on the libuv thread pool, and each phase then
 * only awaits its own. Keys are handed out once and never reused across files.
 */
import { generateKeyPair, type KeyAlgorithm, type KeyPair } from '../pki/keys.js';

export class KeyPool {
  private readonly pending = new Map<string, Promise<KeyPair>>();

  constructor(private readonly generate: (algorithm: KeyAlgorithm) => Promise<KeyPair> = generateKeyPair) {}

  /** Starts generating the key for `id` unless one is already on its way. */
  prefetch(id: string, algorithm: KeyAlgorithm): void {
    const slot = `${id}|${algorithm}`;
    if (this.pending.has(slot)) return;
    const promise = this.generate(algorithm);
    promise.catch(() => undefined); // a failure is reported to whoever takes the key
    this.pending.set(slot, promise);
  }

  /** The prefetched key for `id`, or a new one. */
  take(id: string, algorithm: KeyAlgorithm): Promise<KeyPair> {
    const slot = `${id}|${algorithm}`;
    const promise = this.pending.get(slot);
    if (!promise) return this.generate(algorithm);
    this.pending.delete(slot);
    return promise;
  }

  /** Ids with a key generated or generating and not yet taken (for tests and debugging). */
  get pendingIds(): string[] {
    return [...this.pending.keys()].map((slot) => slot.split('|')[0] ?? slot);
  }
}
