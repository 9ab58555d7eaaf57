// The layers of src/ (docs/architecture.md, "Layers"), checked by `npm run lint:layers`.
//
// LAYERS runs from the bottom up. A module may import modules of its own layer and of the layers
// below it, never of a layer above. Type-only imports count: a type names what a module depends on.
// Every module of src/ belongs to exactly one layer; a new folder must be added to one (rule
// `layer-unassigned`). Cycles between files are dpdm's check (`npm run lint:cycles`).

/** @type {{ name: string, holds: string, paths: string[] }[]} */
const LAYERS = [
  {
    name: 'base',
    holds: 'errors, fixed names, version and User-Agent, flag vocabulary, JSON values, leaf helpers (src/util), Go-style parsing, YAML, logging events, per-minor facts',
    paths: [
      '^src/errors\\.ts$',
      '^src/constants\\.ts$',
      '^src/version\\.ts$',
      '^src/flags\\.ts$',
      '^src/json\\.ts$',
      '^src/util/',
      '^src/duration\\.ts$',
      '^src/types/',
      '^src/net/',
      '^src/yaml/',
      '^src/log/',
      '^src/versions/',
    ],
  },
  {
    name: 'seams',
    holds: 'the host, API, etcd and PKI seams, and the dry-run journal they share',
    paths: ['^src/host/', '^src/kube/', '^src/etcd-client/', '^src/pki/'],
  },
  {
    name: 'model',
    holds: "kubeadm's configuration API, tokens, static pods (the control plane's and etcd's among them), patches, the phase engine, the command-line kit",
    paths: ['^src/config/', '^src/token/', '^src/manifest/', '^src/patches/', '^src/engine/', '^src/cli/(?!app\\.ts$)'],
  },
  {
    name: 'libraries',
    holds: "the domain libraries the phases and the commands share: one run's runtime and base contexts, the certs inventory, kubeconfig files, discovery, the cluster's stored configuration, etcd's members, component health, plans, exit checks, and the day-two commands' logic",
    paths: [
      '^src/run/',
      '^src/certs/',
      '^src/kubeconfig/',
      '^src/discovery/',
      '^src/stored-config/',
      '^src/etcd/',
      '^src/health/',
      '^src/plan/',
      '^src/verify/',
      '^src/upgrade-plan/',
      '^src/certs-lifecycle/',
      '^src/membership/',
      '^src/csr-approval/',
      '^src/etcd-snapshot/',
    ],
  },
  {
    name: 'phases',
    holds: 'the phases, one folder per workflow step, each workflow with its context type beside its phases',
    paths: ['^src/phases/'],
  },
  {
    name: 'workflows',
    holds: 'the phase trees in kubeadm order, runWorkflow that runs them, runCommand (the one skeleton every command runs in), and init --resume',
    paths: ['^src/workflows/', '^src/resume/'],
  },
  {
    name: 'commands',
    holds: 'the commands that are not phase workflows',
    paths: ['^src/commands/'],
  },
  {
    name: 'app',
    holds: 'the composition root: every command registered with yargs',
    paths: ['^src/cli/app\\.ts$'],
  },
  {
    name: 'entry',
    holds: 'the executable, the launcher fast path, parse-run-exit',
    paths: ['^src/main\\.ts$', '^src/help-text\\.ts$', '^src/entry\\.ts$', '^src/fast-entry\\.ts$', '^src/fast-path\\.ts$'],
  },
];

const any = (paths) => paths.join('|');
const ALL = any(LAYERS.flatMap((l) => l.paths));

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.name}`,
  comment: `a module of layer '${layer.name}' imports from a higher layer (${LAYERS.slice(i + 1).map((l) => l.name).join(', ')}); move the shared part down or the importer up`,
  severity: 'error',
  from: { path: any(layer.paths) },
  to: { path: any(LAYERS.slice(i + 1).flatMap((l) => l.paths)) },
}));

export default {
  forbidden: [
    ...upward,
    {
      name: 'layer-unassigned',
      comment: 'a module of src/ that belongs to no layer of .dependency-cruiser.mjs; add its folder to one',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: ALL },
    },
    {
      name: 'layer-unassigned-importer',
      comment: 'a module of src/ that belongs to no layer of .dependency-cruiser.mjs; add its folder to one',
      severity: 'error',
      from: { path: '^src/', pathNot: ALL },
      to: { path: '^src/' },
    },
  ],
  options: {
    // Type-only imports are dependencies too (TypeScript removes them; the layering does not).
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
