/** Shared fixtures of the config loader tests. */
import type { FlagValues } from '../../../src/flags.js';
import type { ConfigEnv } from '../../../src/config/env.js';
import { isTsadmError, type TsadmError } from '../../../src/errors.js';

/** A fixed machine: hostname "CP1 " (normalized to "cp1"), default route 192.168.10.11, deterministic randomness. */
export const ENV: ConfigEnv = {
  hostname: 'CP1 ',
  defaultAdvertiseAddress: '192.168.10.11',
  now: new Date('2024-01-01T00:00:00Z'),
  randomBytes: (n) => Uint8Array.from({ length: n }, (_, i) => i),
};

/** A config file input: the text, with --config set as the CLI would. */
export function withConfig(text: string, flags: FlagValues = {}, env: ConfigEnv = ENV): { configText: string; configPath: string; flags: FlagValues; env: ConfigEnv } {
  return { configText: text, configPath: 'kubeadm.yaml', flags: { config: 'kubeadm.yaml', ...flags }, env };
}

/** Runs fn, which must throw a TsadmError; returns it. */
export function configError(fn: () => unknown): TsadmError {
  try {
    fn();
  } catch (err) {
    if (isTsadmError(err)) return err;
    throw err;
  }
  throw new Error('expected a TsadmError, nothing was thrown');
}

/** Every line of a config error (message and details). */
export function errorLines(fn: () => unknown): string[] {
  const e = configError(fn);
  return [e.message, ...e.details];
}

/**
 * A target that reads the v1beta2 and v1beta3 documents of the loader tests: v1.34.1, their
 * default target before Kubernetes 1.35–1.37 were added. kubeadm 1.37 no longer reads v1beta3
 * (PR #136016), so a file in those versions pins it; the refusal itself is tested in
 * test/unit/config/api-versions.test.ts and load.bad-inputs.test.ts.
 */
export const V1BETA3_VERSION = 'v1.34.1';
/** The same as a ClusterConfiguration document to append to a file (lines, after a separator). */
export const V1BETA3_TARGET: readonly string[] = ['---', 'apiVersion: kubeadm.k8s.io/v1beta3', 'kind: ClusterConfiguration', `kubernetesVersion: ${V1BETA3_VERSION}`];
