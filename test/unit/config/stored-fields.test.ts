/**
 * Fields the kubeadm-config of the target minor cannot carry (src/config/stored-fields.ts; issue 36
 * item 9). The oracle for "cannot carry" is not the rule table: each case is resolved, written the
 * way init uploads it for the target (serializeClusterConfiguration at the target's stored API
 * version) and read back the way a joining control plane reads it (resolveInitConfig of the stored
 * text); the field is lost exactly when the value read back differs. A lost field must be refused
 * or warned about, a carried one must pass silently.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveInitConfig, resolveJoinConfig } from '../../../src/config/load.js';
import { serializeClusterConfiguration } from '../../../src/config/print.js';
import { STORED_FIELD_RULES, firstMinorStoring, joinStoredFieldErrors } from '../../../src/config/stored-fields.js';
import type { ResolvedInitConfig } from '../../../src/config/types.js';
import { validateConfigFile } from '../../../src/config/validate-file.js';
import { isTsadmError } from '../../../src/errors.js';
import { profileFor } from '../../../src/versions/resolve.js';
import { resolveInit } from '../../../src/workflows/init.js';
import { runCli } from '../../helpers/cli.js';
import { ENV, errorLines, withConfig } from './support.js';

const v4 = (version: string, cluster: string, init = ''): string =>
  [
    'apiVersion: kubeadm.k8s.io/v1beta4',
    'kind: InitConfiguration',
    ...(init === '' ? [] : [init]),
    '---',
    'apiVersion: kubeadm.k8s.io/v1beta4',
    'kind: ClusterConfiguration',
    `kubernetesVersion: ${version}`,
    cluster,
  ].join('\n') + '\n';

const CERT_2H = 'certificateValidityPeriod: 2h';

describe('issue 36 item 9: certificateValidityPeriod and the stored kubeadm-config', () => {
  test('v1beta4 file, v1.20 target: refused in one line naming the field, the target and the fix', () => {
    const lines = errorLines(() => resolveInitConfig(withConfig(v4('v1.20.0', CERT_2H))));
    const line = lines.find((l) => l.startsWith('certificateValidityPeriod: '));
    expect(line).toMatch(/^certificateValidityPeriod: needs kubeadm v1beta4, which Kubernetes ≥1\.31 stores; the kubeadm-config of Kubernetes v1\.20\.0 is v1beta2, .*; for v1\.20\.0 remove it or target ≥1\.31$/);
    expect(line).not.toContain('\n');
  });

  test('the same file with a v1.31 target is accepted and the stored record keeps 2h', () => {
    const r = resolveInitConfig(withConfig(v4('v1.31.0', CERT_2H)));
    expect(r.cluster.certificateValidityMs).toBe(2 * 3600 * 1000);
    expect(serializeClusterConfiguration(r.cluster, profileFor('v1.31.0').configApiVersion)).toContain('certificateValidityPeriod: 2h0m0s');
  });

  test('v1.30 (stored v1beta3) is refused too, naming v1beta3', () => {
    expect(errorLines(() => resolveInitConfig(withConfig(v4('v1.30.0', CERT_2H))))).toContainEqual(expect.stringContaining('the kubeadm-config of Kubernetes v1.30.0 is v1beta3'));
  });

  test('`tsadm config validate` reports it for v1.20 and not for v1.31', () => {
    const old = validateConfigFile(v4('v1.20.0', CERT_2H), 'cfg.yaml', ENV);
    expect(old.problems.filter((p) => p.startsWith('certificateValidityPeriod: needs kubeadm v1beta4'))).toHaveLength(1);
    expect(validateConfigFile(v4('v1.31.0', CERT_2H), 'cfg.yaml', ENV).problems).toEqual([]);
  });

  test('`init --dry-run` refuses it while resolving its configuration, before any phase', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsadm-stored-'));
    try {
      const path = join(dir, 'kubeadm.yaml');
      writeFileSync(path, v4('v1.20.0', CERT_2H));
      const err: unknown = await resolveInit({ config: path, 'dry-run': true }, ENV.now).then(() => undefined, (e: unknown) => e);
      expect(isTsadmError(err) && err.code).toBe('E_CONFIG_INVALID');
      expect(isTsadmError(err) ? [err.message, ...err.details].filter((l) => l.startsWith('certificateValidityPeriod: needs kubeadm v1beta4')) : []).not.toEqual([]);
      writeFileSync(path, v4('v1.31.0', CERT_2H));
      await expect(resolveInit({ config: path, 'dry-run': true }, ENV.now)).resolves.toMatchObject({ cluster: { certificateValidityMs: 7_200_000 } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('through the CLI: `init --dry-run` and `config validate` fail with the line; `certs check-expiration` and `config images list`, which store nothing, do not judge it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsadm-stored-cli-'));
    try {
      const path = join(dir, 'kubeadm.yaml');
      writeFileSync(path, v4('v1.20.0', CERT_2H));
      for (const args of [['init', '--dry-run', '--config', path], ['config', 'validate', '--config', path]]) {
        const r = await runCli(args);
        expect([args[0], r.code]).toEqual([args[0], 3]);
        expect(r.stderr).toMatch(/error: certificateValidityPeriod: needs kubeadm v1beta4, which Kubernetes ≥1\.31 stores; .*for v1\.20\.0 remove it or target ≥1\.31\n/);
      }
      mkdirSync(join(dir, 'root'));
      for (const args of [['certs', 'check-expiration', '--rootfs', join(dir, 'root'), '--config', path], ['config', 'images', 'list', '--config', path]]) {
        const r = await runCli(args);
        expect([args[0], r.code, r.stderr]).toEqual([args[0], 0, expect.not.stringContaining('needs kubeadm')]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** One field set to a value the newest record holds; `get` reads it back from a resolved config. */
interface Case {
  readonly name: string;
  readonly cluster: string;
  readonly get: (r: ResolvedInitConfig) => unknown;
  /** Expected treatment where lost (STORED_FIELD_RULES' decision, re-stated here on purpose). */
  readonly lost: 'refuse' | 'warn' | 'carry';
  /** The path the finding names. */
  readonly path: string;
}

const CASES: readonly Case[] = [
  { name: 'certificateValidityPeriod', cluster: CERT_2H, get: (r) => r.cluster.certificateValidityMs, lost: 'refuse', path: 'certificateValidityPeriod' },
  { name: 'caCertificateValidityPeriod', cluster: 'caCertificateValidityPeriod: 43800h', get: (r) => r.cluster.caCertificateValidityMs, lost: 'warn', path: 'caCertificateValidityPeriod' },
  { name: 'encryptionAlgorithm ECDSA-P384', cluster: 'encryptionAlgorithm: ECDSA-P384', get: (r) => r.cluster.encryptionAlgorithm, lost: 'refuse', path: 'encryptionAlgorithm' },
  { name: 'encryptionAlgorithm RSA-4096', cluster: 'encryptionAlgorithm: RSA-4096', get: (r) => r.cluster.encryptionAlgorithm, lost: 'refuse', path: 'encryptionAlgorithm' },
  { name: 'encryptionAlgorithm ECDSA-P256', cluster: 'encryptionAlgorithm: ECDSA-P256', get: (r) => r.cluster.encryptionAlgorithm, lost: 'carry', path: 'encryptionAlgorithm' },
  { name: 'dns.disabled', cluster: 'dns:\n  disabled: true', get: (r) => r.cluster.dns.disabled, lost: 'warn', path: 'dns.disabled' },
  { name: 'proxy.disabled', cluster: 'proxy:\n  disabled: true', get: (r) => r.cluster.proxy.disabled, lost: 'warn', path: 'proxy.disabled' },
  ...(['apiServer', 'controllerManager', 'scheduler'] as const).map((c): Case => ({
    name: `${c}.extraEnvs`, cluster: `${c}:\n  extraEnvs:\n  - name: A\n    value: b`, get: (r) => r.cluster[c].extraEnvs, lost: 'refuse', path: `${c}.extraEnvs`,
  })),
  {
    name: 'etcd.local.extraEnvs', cluster: 'etcd:\n  local:\n    extraEnvs:\n    - name: A\n      value: b',
    get: (r) => (r.cluster.etcd.mode === 'local' ? r.cluster.etcd.extraEnvs : undefined), lost: 'refuse', path: 'etcd.local.extraEnvs',
  },
  ...(['apiServer', 'controllerManager', 'scheduler'] as const).map((c): Case => ({
    name: `${c}.extraArgs repeated`, cluster: `${c}:\n  extraArgs:\n  - name: v\n    value: "2"\n  - name: v\n    value: "4"`,
    get: (r) => r.cluster[c].extraArgs, lost: 'refuse', path: `${c}.extraArgs["v"]`,
  })),
  {
    name: 'etcd.local.extraArgs repeated', cluster: 'etcd:\n  local:\n    extraArgs:\n    - name: v\n      value: "2"\n    - name: v\n      value: "4"',
    get: (r) => (r.cluster.etcd.mode === 'local' ? r.cluster.etcd.extraArgs : undefined), lost: 'refuse', path: 'etcd.local.extraArgs["v"]',
  },
];

/** One target per stored API version, and both sides of each boundary. */
const TARGETS = ['v1.20.0', 'v1.21.0', 'v1.22.0', 'v1.30.0', 'v1.31.0', 'v1.36.0'];

/** The field as a control plane joining later reads it: written as init uploads it, read back. */
function readBack(r: ResolvedInitConfig, version: string): string {
  return serializeClusterConfiguration(r.cluster, profileFor(version).configApiVersion);
}

function roundTrip(c: Case, version: string, resolved: ResolvedInitConfig): { before: unknown; after: unknown } {
  const again = resolveInitConfig({ configText: readBack(resolved, version), configPath: 'kubeadm-config', flags: {}, env: ENV, apiVersionCheck: 'any' });
  return { before: c.get(resolved), after: c.get(again) };
}

describe('every field the stored record cannot carry, on every stored API version', () => {
  const table = CASES.flatMap((c) => TARGETS.map((t) => [c.name, t, c] as const));
  test.each(table)('%s, target %s', (_name, version, c) => {
    const text = v4(version, c.cluster);
    // Unchecked (as a record is read): does the target's record carry the value?
    const unchecked = resolveInitConfig({ ...withConfig(text), apiVersionCheck: 'any' });
    const { before, after } = roundTrip(c, version, unchecked);
    const carried = JSON.stringify(before) === JSON.stringify(after);
    const mentions = (lines: readonly string[]) => [...new Set(lines)].filter((l) => l.startsWith(`${c.path}: `));
    if (carried) {
      const r = resolveInitConfig(withConfig(text));
      expect(mentions(r.warnings)).toEqual([]);
      expect(roundTrip(c, version, r).after).toEqual(before);
      return;
    }
    expect(profileFor(version).configApiVersion).not.toBe('kubeadm.k8s.io/v1beta4');
    if (c.lost === 'refuse') {
      expect(mentions(errorLines(() => resolveInitConfig(withConfig(text))))).toEqual([expect.stringContaining(`for ${version} `)]);
      return;
    }
    const r = resolveInitConfig(withConfig(text));
    expect(mentions(r.warnings)).toHaveLength(1);
    if (c.lost === 'warn') expect(mentions(r.warnings)[0]).toContain('will not persist');
    // Carried by other means: the checked configuration's record reads the value back.
    if (c.lost === 'carry') expect(roundTrip(c, version, r).after).toEqual(before);
  });

  test('the cases cover every rule of the table', () => {
    const covered = new Set(CASES.map((c) => c.path.replace(/^(apiServer|controllerManager|scheduler|etcd\.local)\./, '<component>.').replace(/\["v"\]$/, ' (a flag repeated)')));
    const missing = STORED_FIELD_RULES.map((r) => r.field).filter((f) => !f.startsWith('nodeRegistration.') && !covered.has(f));
    expect(missing).toEqual([]);
  });
});

describe('the edges', () => {
  test('ECDSA-P256 with the PublicKeysECDSA gate turned off cannot be carried: refused', () => {
    const text = v4('v1.25.0', 'encryptionAlgorithm: ECDSA-P256\nfeatureGates:\n  PublicKeysECDSA: false');
    expect(errorLines(() => resolveInitConfig(withConfig(text)))).toContainEqual(expect.stringMatching(/^encryptionAlgorithm: needs kubeadm v1beta4/));
  });

  test('the default values, written out, are not findings (nothing differs in the record)', () => {
    const text = v4('v1.20.0', 'certificateValidityPeriod: 8760h\ncaCertificateValidityPeriod: 87600h\nencryptionAlgorithm: RSA-2048\ndns:\n  disabled: false');
    expect(resolveInitConfig(withConfig(text)).warnings.filter((w) => /^(certificateValidityPeriod|caCertificateValidityPeriod|encryptionAlgorithm|dns)/.test(w))).toEqual([]);
  });

  test('a flag repeated with the same value loses nothing', () => {
    expect(() => resolveInitConfig(withConfig(v4('v1.20.0', 'apiServer:\n  extraArgs:\n  - name: v\n    value: "2"\n  - name: v\n    value: "2"')))).not.toThrow();
  });

  test('kubeletExtraArgs repeated: refused below 1.31 (kubeadm-flags.env holds one value a flag there), accepted from 1.31', () => {
    const init = 'nodeRegistration:\n  kubeletExtraArgs:\n  - name: node-labels\n    value: a=b\n  - name: node-labels\n    value: c=d';
    expect(errorLines(() => resolveInitConfig(withConfig(v4('v1.30.0', '', init))))).toContainEqual(expect.stringMatching(/^nodeRegistration\.kubeletExtraArgs\["node-labels"\]: needs kubeadm v1beta4.*give the flag once or target ≥1\.31$/));
    expect(resolveInitConfig(withConfig(v4('v1.31.0', '', init))).init.nodeRegistration.kubeletExtraArgs).toHaveLength(2);
  });

  test('join: a JoinConfiguration repeating a kubelet flag is refused for a cluster below 1.31 only (judged once discovery found the version)', () => {
    const join = resolveJoinConfig(withConfig([
      'apiVersion: kubeadm.k8s.io/v1beta4', 'kind: JoinConfiguration',
      'discovery:', '  bootstrapToken:', '    apiServerEndpoint: 10.0.0.1:6443', '    token: abcdef.0123456789abcdef', '    unsafeSkipCAVerification: true',
      'nodeRegistration:', '  kubeletExtraArgs:', '  - name: node-labels', '    value: a=b', '  - name: node-labels', '    value: c=d', '',
    ].join('\n')));
    const at = (v: string) => joinStoredFieldErrors(join.join.nodeRegistration, { kubernetesVersion: v, profile: profileFor(v) });
    expect(at('v1.22.0')).toEqual([expect.stringMatching(/^nodeRegistration\.kubeletExtraArgs\["node-labels"\]: needs kubeadm v1beta4, .*is v1beta3, .*for v1\.22\.0 give the flag once or target ≥1\.31$/)]);
    expect(at('v1.31.0')).toEqual([]);
  });

  test('the boundary is the version table\'s first v1beta4 minor', () => {
    expect(firstMinorStoring('kubeadm.k8s.io/v1beta4')).toBe('1.31');
    expect(firstMinorStoring('kubeadm.k8s.io/v1beta3')).toBe('1.22');
  });

  test('the stored record (apiVersionCheck any) is not judged again, nor a file of a command that stores nothing (storedFields skip)', () => {
    expect(() => resolveInitConfig({ ...withConfig(v4('v1.20.0', CERT_2H)), apiVersionCheck: 'any' })).not.toThrow();
    expect(resolveInitConfig({ ...withConfig(v4('v1.20.0', CERT_2H)), storedFields: 'skip' }).cluster.certificateValidityMs).toBe(7_200_000);
  });
});

test('an unknown encryptionAlgorithm is reported once, by validation, not again as a lost field', () => {
  const lines = [...new Set(errorLines(() => resolveInitConfig(withConfig(v4('v1.20.0', 'encryptionAlgorithm: RSA-1024')))))];
  expect(lines.filter((l) => l.startsWith('encryptionAlgorithm: '))).toEqual([expect.stringContaining('invalid encryption algorithm "RSA-1024"')]);
});
