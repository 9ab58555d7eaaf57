import type { JsonObject } from '../../src/json.js';

/**
 * A small Pod for the patch tests: one container with a command, an env var and a volume mount,
 * and the matching hostPath volume. A fresh object per call, so a test may mutate it.
 */
export const fixturePod = (): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'x', labels: { a: '1' } },
  spec: {
    containers: [{ name: 'c', command: ['run', '--x=1'], env: [{ name: 'A', value: '1' }], volumeMounts: [{ name: 'v', mountPath: '/v' }] }],
    volumes: [{ name: 'v', hostPath: { path: '/v' } }],
  },
});
