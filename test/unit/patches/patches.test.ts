import { RootedHost } from '../../../src/host/rooted-host.js';
import { isTsadmError } from '../../../src/errors.js';
import type { JsonObject } from '../../../src/manifest/json.js';
import { applyPatchFiles } from '../../../src/patches/apply.js';
import { parsePatchFilename, patchTargetsFor, STATIC_POD_PATCH_TARGETS } from '../../../src/patches/filename.js';
import { applyJsonPatch } from '../../../src/patches/json-patch.js';
import { loadPatches } from '../../../src/patches/load.js';
import { applyMergePatch } from '../../../src/patches/merge-patch.js';
import { POD_PATCH_SCHEMA, untyped } from '../../../src/patches/schema.js';
import { applyStrategicMergePatch } from '../../../src/patches/strategic.js';
import { VERSION_TABLE } from '../../../src/versions/table.js';
import { tempRoot } from '../../helpers/temp-root.js';

const targets = [...STATIC_POD_PATCH_TARGETS];

describe('patch file names', () => {
  test.each([
    ['kube-apiserver.yaml', { kind: 'patch', target: 'kube-apiserver', type: 'strategic' }],
    ['kube-apiserver0+merge.yaml', { kind: 'patch', target: 'kube-apiserver', type: 'merge' }],
    ['etcd-suffix+json.json', { kind: 'patch', target: 'etcd', type: 'json' }],
    ['kube-scheduler+strategic.json', { kind: 'patch', target: 'kube-scheduler', type: 'strategic' }],
    ['kube-scheduler.yml', { kind: 'ignore', reason: 'the file extension must be one of [json yaml]' }],
    ['README.md', { kind: 'ignore', reason: 'the file extension must be one of [json yaml]' }],
    ['coredns.yaml', { kind: 'ignore', reason: 'unknown target, must be one of [etcd kube-apiserver kube-controller-manager kube-scheduler]' }],
    ['etcd+xml.yaml', { kind: 'error', reason: "unknown or missing patch type after '+', must be one of [json merge strategic]" }],
  ])('%s', (name, expected) => {
    expect(parsePatchFilename(name, targets)).toEqual(expected);
  });

  test('kubeletconfiguration is a known target from 1.25', () => {
    expect(patchTargetsFor(VERSION_TABLE['1.24'])).not.toContain('kubeletconfiguration');
    expect(patchTargetsFor(VERSION_TABLE['1.25'])).toContain('kubeletconfiguration');
  });
});

const pod = (): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'x', labels: { a: '1' } },
  spec: {
    containers: [{ name: 'c', command: ['run', '--x=1'], env: [{ name: 'A', value: '1' }], volumeMounts: [{ name: 'v', mountPath: '/v' }] }],
    volumes: [{ name: 'v', hostPath: { path: '/v' } }],
  },
});

describe('strategic merge patch', () => {
  test('containers merge by name, env by name, volumeMounts by mountPath; new elements first; untagged lists replaced', () => {
    const out = applyStrategicMergePatch(pod(), {
      spec: { containers: [{ name: 'c', command: ['other'], env: [{ name: 'B', value: '2' }], volumeMounts: [{ mountPath: '/w', name: 'w' }] }] },
    }, POD_PATCH_SCHEMA);
    expect(out.spec).toEqual({
      containers: [{ name: 'c', command: ['other'], env: [{ name: 'B', value: '2' }, { name: 'A', value: '1' }], volumeMounts: [{ mountPath: '/w', name: 'w' }, { name: 'v', mountPath: '/v' }] }],
      volumes: [{ name: 'v', hostPath: { path: '/v' } }],
    });
  });

  test('$patch: delete on an element and replace on a list', () => {
    const out = applyStrategicMergePatch(pod(), { spec: { volumes: [{ name: 'v', $patch: 'delete' }], containers: [{ name: 'c', env: [{ $patch: 'replace' }, { name: 'Z', value: '0' }] }] } }, POD_PATCH_SCHEMA);
    expect(out.spec).toMatchObject({ volumes: [], containers: [{ env: [{ name: 'Z', value: '0' }] }] });
  });

  test('a list element without its merge key is an error', () => {
    expect(() => applyStrategicMergePatch(pod(), { spec: { containers: [{ image: 'x' }] } }, POD_PATCH_SCHEMA)).toThrow(/does not contain declared merge key: name/);
  });

  test('without a schema, lists are replaced and objects merged (kubeletconfiguration)', () => {
    const out = applyStrategicMergePatch({ a: [1, 2], m: { x: 1 } }, { a: [3], m: { y: 2 } }, untyped());
    expect(out).toEqual({ a: [3], m: { x: 1, y: 2 } });
  });
});

describe('JSON merge patch', () => {
  test('null deletes, objects merge, lists replace', () => {
    expect(applyMergePatch(pod(), { metadata: { labels: null, annotations: { k: 'v' } }, spec: { volumes: [] } })).toMatchObject({
      metadata: { name: 'x', annotations: { k: 'v' } },
      spec: { volumes: [] },
    });
  });

  test('a scalar patch is refused', () => {
    expect(() => applyMergePatch(pod(), 'x')).toThrow(/Invalid JSON Patch/);
  });
});

describe('JSON patch', () => {
  test('operations in order, "-" appends, ~1 decodes to /', () => {
    const out = applyJsonPatch(pod(), [
      { op: 'add', path: '/spec/containers/0/command/-', value: '--y=2' },
      { op: 'replace', path: '/metadata/labels/a', value: '2' },
      { op: 'add', path: '/metadata/labels/x~1y', value: 'z' },
      { op: 'test', path: '/metadata/name', value: 'x' },
    ]);
    expect(out).toMatchObject({ metadata: { labels: { a: '2', 'x/y': 'z' } }, spec: { containers: [{ command: ['run', '--x=1', '--y=2'] }] } });
  });

  test.each([
    [[{ op: 'remove', path: '/metadata/nope' }], /Unable to remove nonexistent key: nope/],
    [[{ op: 'add', path: '/nope/deeper/x', value: 1 }], /doc is missing path: "\/nope\/deeper\/x"/],
    [[{ op: 'test', path: '/metadata/name', value: 'y' }], /testing value \/metadata\/name failed/],
    [[{ op: 'add', path: '/spec/containers/0/command/9', value: 'x' }], /invalid index: 9/],
    [[{ op: 'frobnicate', path: '/a' }], /Unexpected kind: frobnicate/],
    [{ op: 'add' }, /must be a list of operations/],
  ])('%j fails: %s', (ops, message) => {
    expect(() => applyJsonPatch(pod(), ops)).toThrow(message);
  });
});

describe('applying patch files', () => {
  test('a failing patch names the file, the document, the type and the target', () => {
    const files = [{ file: 'kube-apiserver+json.yaml', target: 'kube-apiserver', type: 'json' as const, patches: [[], [{ op: 'remove', path: '/x' }]] }];
    try {
      applyPatchFiles('kube-apiserver', pod(), files, POD_PATCH_SCHEMA, '/patches');
      throw new Error('expected an error');
    } catch (err) {
      expect(isTsadmError(err)).toBe(true);
      expect((err as Error).message).toBe('could not apply patch file "kube-apiserver+json.yaml" (document 2) of type "json" to target "kube-apiserver": error in remove for path: \'/x\': Unable to remove nonexistent key: x');
      expect((err as { hint?: string }).hint).toContain('/patches/kube-apiserver+json.yaml');
    }
  });
});

describe('loading a patches directory', () => {
  test('lexical order, sub-directories walked, notices like kubeadm\'s', async () => {
    const root = tempRoot({
      '/p/kube-scheduler.yaml': 'spec: {}\n---\n\n---\nmetadata: {}\n',
      '/p/a/etcd+merge.json': '{"spec": {}}',
      '/p/empty.yaml': '',
      '/p/notes.txt': 'x',
    });
    try {
      const loaded = await loadPatches(new RootedHost(root.dir), '/p', targets);
      expect(loaded.files.map((f) => [f.file, f.target, f.type, f.patches.length])).toEqual([
        ['a/etcd+merge.json', 'etcd', 'merge', 1],
        ['kube-scheduler.yaml', 'kube-scheduler', 'strategic', 2],
      ]);
      expect(loaded.notices).toEqual([
        'Reading patches from path "/p"',
        'Ignoring file "empty.yaml": unknown target, must be one of [etcd kube-apiserver kube-controller-manager kube-scheduler]',
        'Ignoring file "notes.txt": the file extension must be one of [json yaml]',
        'Found the following patch files: [etcd+merge.json kube-scheduler.yaml]',
        'Ignored the following files: [empty.yaml notes.txt]',
      ]);
    } finally {
      root.cleanup();
    }
  });

  test('a missing directory, a bad patch type and unparsable YAML are errors naming the culprit', async () => {
    const root = tempRoot({ '/bad/etcd+xml.yaml': 'a: 1', '/yaml/etcd.yaml': 'a: [1' });
    try {
      const host = new RootedHost(root.dir);
      await expect(loadPatches(host, '/missing', targets)).rejects.toThrow('could not list patch files for path "/missing": no such directory');
      await expect(loadPatches(host, '/bad', targets)).rejects.toThrow(/unknown or missing patch type after '\+'.*\/bad\/etcd\+xml\.yaml/);
      await expect(loadPatches(host, '/yaml', targets)).rejects.toThrow(/could not parse patch file "\/yaml\/etcd.yaml"/);
    } finally {
      root.cleanup();
    }
  });
});

describe('patchTarget', () => {
  test('under --rootfs a relative directory is taken from the root, and notices are logged once', async () => {
    const { newPatchCache, patchTarget } = await import('../../../src/patches/run.js');
    const root = tempRoot({ '/p/etcd+merge.yaml': 'metadata: {labels: {x: "1"}}\n' });
    try {
      const messages: string[] = [];
      const log = { info: (m: string) => messages.push(m), warn: () => undefined, debug: () => undefined, output: () => undefined, event: () => undefined };
      const ctx = { host: new RootedHost(root.dir), log, state: { patches: newPatchCache() } };
      const doc = { metadata: { name: 'etcd' } };
      expect(await patchTarget(ctx, 'p', 'etcd', targets, doc, POD_PATCH_SCHEMA)).toEqual({ metadata: { name: 'etcd', labels: { x: '1' } } });
      expect(await patchTarget(ctx, 'p', 'kube-apiserver', targets, doc, POD_PATCH_SCHEMA)).toBe(doc);
      expect(messages).toEqual([
        'Reading patches from path "/p"',
        'Found the following patch files: [etcd+merge.yaml]',
        'Applied patch of type "application/merge-patch+json" to target "etcd"',
      ]);
    } finally {
      root.cleanup();
    }
  });
});
