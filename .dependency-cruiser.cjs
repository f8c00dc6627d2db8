/**
 * Assay's module rules, checked by test/architecture/module-rules.test.ts (and by
 * `npx depcruise src` for a report). docs/architecture.md explains them.
 *
 * A module is a folder directly under src/modules/ (the product's rooms) or
 * src/platform/ (the plumbing). The product's modules stand in layers, lowest
 * first; a module imports only from platform and from modules in lower
 * layers, so no two modules can import each other. Work a lower module causes
 * in a higher one goes through the job queue (a declaration below, its
 * handler registered where the worker is built) or a hook installed by an
 * entry point (the webhook fan-out), never an import.
 */
const LAYERS = [
  ['staff'],
  ['institutions'],
  ['catalog'],
  ['lifecycle'],
  ['assignments', 'webhooks'],
  ['attempts'],
  ['assignment-controls', 'marking', 'proctoring'],
  ['events', 'student', 'results'],
  ['sandbox', 'lti'],
  ['portal'],
];

const any = (names) => `^src/modules/(${names.join('|')})/`;
const layerRules = LAYERS.map((layer, i) => ({
  name: `layer-${i + 1}-imports-only-lower-layers`,
  comment: `${layer.join(', ')} may import platform and ${i === 0 ? 'no module' : LAYERS.slice(0, i).flat().join(', ')}`,
  severity: 'error',
  from: { path: any(layer) },
  to: { path: '^src/modules/', pathNot: [i === 0 ? '^$' : any(LAYERS.slice(0, i).flat()), '^src/modules/$1/'] },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'every-module-has-a-layer',
      comment: 'A new folder under src/modules/ takes its place in LAYERS above.',
      severity: 'error',
      from: { path: '^src/modules/', pathNot: any(LAYERS.flat()) },
      to: {},
    },
    {
      name: 'no-foreign-repository',
      comment: "A module's *-repo.ts files are its private SQL: other modules use its service and read functions.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/.+-repo\\.ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'platform-is-the-floor',
      comment: 'Plumbing imports no product module and no entry point.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/(modules|cli|demo)/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'modules-import-no-entry-point',
      comment: 'The entry points (server, worker, CLI, demo) assemble the modules; no module imports them.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/(cli|demo)/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle between files either (a cycle inside one module too).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'src-imports-no-tests',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { path: '^(test|bench)/|\\.test\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};

// The layers, for the architecture test and the docs' picture (not part of dependency-cruiser's schema).
Object.defineProperty(module.exports, 'LAYERS', { value: LAYERS, enumerable: false });
