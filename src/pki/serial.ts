import { randomBytes } from 'node:crypto';

const MAX_INT64 = (1n << 63n) - 1n;

/**
 * A uniformly random serial in [min, 2^63 − 1), as kubeadm draws them with
 * crypto/rand.Int(MaxInt64) (modern kubeadm adds 1 so serials are never 0).
 */
export function randomSerial(min = 1n): bigint {
  const span = MAX_INT64 - min;
  for (;;) {
    const candidate = randomBytes(8).readBigUInt64BE() & MAX_INT64; // 63 random bits
    if (candidate < span) return candidate + min; // rejection keeps it uniform
  }
}
