import { RootedHost } from '../../../src/host/rooted-host.js';
import { STATIC_POD_PATCH_TARGETS } from '../../../src/patches/filename.js';
import { loadPatches } from '../../../src/patches/load.js';
import { tempRoot } from '../../helpers/temp-root.js';

const targets = [...STATIC_POD_PATCH_TARGETS];

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

  test('issue 27: an alias bomb in a patch file is refused at once, as in --config (same reader, same bounds)', async () => {
    // Nine levels of nine aliases (80 aliases, under the count limit): ~387 M strings once expanded.
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    const root = tempRoot({ '/p/kube-apiserver.yaml': `${lines.join('\n')}\nspec: *i\n`, '/q/etcd.yaml': `x: &x 1\ny: [${Array(101).fill('*x').join(',')}]\n` });
    try {
      const host = new RootedHost(root.dir);
      const started = Date.now();
      await expect(loadPatches(host, '/p', targets)).rejects.toThrow(/could not parse patch file "\/p\/kube-apiserver.yaml": YAML aliases expand this document beyond 1048576 bytes/);
      expect(Date.now() - started).toBeLessThan(2000);
      await expect(loadPatches(host, '/q', targets)).rejects.toThrow(/could not parse patch file "\/q\/etcd.yaml": the document has more than 100 YAML aliases/);
    } finally {
      root.cleanup();
    }
  });
});
