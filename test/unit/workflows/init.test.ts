import { FLAG_NAMES } from '../../../src/cli/flags.js';
import { addonPhase } from '../../../src/phases/addons/addon-phase.js';
import { bootstrapTokenPhase } from '../../../src/phases/cluster/bootstrap-token.js';
import { kubeletFinalizePhase, kubeletFinalizePhaseFor } from '../../../src/phases/cluster/kubelet-finalize.js';
import { markControlPlanePhase } from '../../../src/phases/cluster/mark-control-plane.js';
import { showJoinCommandPhase } from '../../../src/phases/cluster/show-join-command.js';
import { uploadCertsPhase } from '../../../src/phases/cluster/upload-certs.js';
import { uploadConfigPhase } from '../../../src/phases/cluster/upload-config.js';
import { flatten, validateTree } from '../../../src/engine/phase.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';

describe('the API phases as a tree', () => {
  const tree = [uploadConfigPhase, uploadCertsPhase, markControlPlanePhase, bootstrapTokenPhase, kubeletFinalizePhase, addonPhase, showJoinCommandPhase];

  test('valid: kebab-case, leaves run, declared flags exist', () => {
    expect(() => validateTree(tree, FLAG_NAMES)).not.toThrow();
    expect(() => validateTree([kubeletFinalizePhaseFor(VERSION_TABLE['1.20'])], FLAG_NAMES)).not.toThrow();
  });

  test('kubeadm\'s names and aliases', () => {
    expect(flatten(tree).map((f) => f.path)).toEqual([
      'upload-config', 'upload-config/kubeadm', 'upload-config/kubelet', 'upload-certs', 'mark-control-plane', 'bootstrap-token',
      'kubelet-finalize', 'kubelet-finalize/enable-client-cert-rotation', 'addon', 'addon/coredns', 'addon/kube-proxy', 'show-join-command',
    ]);
    expect(uploadConfigPhase.aliases).toEqual(['uploadconfig']);
    expect(markControlPlanePhase.aliases).toEqual(['mark-master']);
    expect(bootstrapTokenPhase.aliases).toEqual(['bootstraptoken']);
  });

  test('every phase that talks to the API declares --kubeconfig', () => {
    for (const f of flatten(tree)) {
      if (!f.phase.run || f.path.startsWith('kubelet-finalize')) continue;
      expect([f.path, f.phase.flags?.includes('kubeconfig')]).toEqual([f.path, true]);
    }
  });
});
