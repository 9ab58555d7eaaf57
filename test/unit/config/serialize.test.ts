/**
 * Good v1beta2 files must resolve, and — when the reference kubeadm v1.20.2 is provisioned — be
 * defaulted exactly as kubeadm does: `kubeadm config migrate` prints its defaulted config in
 * v1beta2, which must equal tsadm's resolved config written back in v1beta2. Values kubeadm
 * detects on the machine (hostname, address, CRI socket, the taint it adds at load time) and
 * random tokens are taken from kubeadm's output, since they are inputs here, not defaults.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as yaml from 'js-yaml';
import { resolveInitConfig } from '../../../src/config/load.js';
import { clusterToExternal, initToExternal } from '../../../src/config/serialize.js';
import { referenceKubeadmPath } from '../../helpers/components.js';
import { describeWithOracles, oracles } from '../../helpers/oracle.js';
import { ENV, withConfig } from './support.js';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/config/good');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
const kubeadm = referenceKubeadmPath();
// The fields of kubeadm's documents (and their nodeRegistration and tokens) this comparison reads or fills in.
interface Doc { kind?: string; name?: string; token?: string; criSocket?: string; taints?: unknown; ignorePreflightErrors?: string[]; advertiseAddress?: string; nodeRegistration?: Doc; localAPIEndpoint?: Doc; bootstrapTokens?: Doc[] }

test.each(files.map((f) => [f]))('%s resolves without errors or warnings', (file) => {
  const cfg = resolveInitConfig(withConfig(readFileSync(path.join(dir, file), 'utf8')));
  expect(cfg.warnings).toEqual([]);
});

describeWithOracles([oracles.kubeadm])('kubeadm v1.20.2 defaults these files the same way', () => {
  test.each(files.map((f) => [f]))('%s', (file) => {
    const full = path.join(dir, file);
    const run = spawnSync(kubeadm as string, ['config', 'migrate', '--old-config', full], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    const [theirInit, theirCluster] = yaml.loadAll(run.stdout) as Doc[];
    const input = (yaml.loadAll(readFileSync(full, 'utf8')) as Doc[]).find((d) => d.kind === 'InitConfiguration');
    const cfg = resolveInitConfig(withConfig(readFileSync(full, 'utf8'), {}, {
      ...ENV,
      hostname: theirInit?.nodeRegistration?.name as string,
      defaultAdvertiseAddress: theirInit?.localAPIEndpoint?.advertiseAddress,
    }));
    const ourInit = initToExternal(cfg.init, 'kubeadm.k8s.io/v1beta2');
    const nr = ourInit.nodeRegistration as Doc;
    if (!input?.nodeRegistration?.criSocket) nr.criSocket = theirInit?.nodeRegistration?.criSocket;
    // kubeadm 1.20 adds the control-plane taint at load time; tsadm leaves it unset for mark-control-plane.
    if (input?.nodeRegistration?.taints === undefined) nr.taints = theirInit?.nodeRegistration?.taints;
    // kubeadm init lowercases this list when it merges it with the flag (ValidateIgnorePreflightErrors); migrate does not.
    const theirIgnored = theirInit?.nodeRegistration?.ignorePreflightErrors;
    if (theirIgnored) theirInit.nodeRegistration!.ignorePreflightErrors = theirIgnored.map((s) => s.toLowerCase()).sort();
    (ourInit.bootstrapTokens as Doc[]).forEach((t, i) => {
      if (!input?.bootstrapTokens?.[i]?.token) t.token = theirInit?.bootstrapTokens?.[i]?.token;
    });
    expect(ourInit).toEqual(theirInit);
    expect(clusterToExternal(cfg.cluster, 'kubeadm.k8s.io/v1beta2')).toEqual(theirCluster);
  });
});
