/**
 * The layers of docs/architecture.md, enforced: each layer imports only from the layers below it.
 * `make test` runs `depcruise` with this file first and stops on any violation.
 *
 *   1 core (packages/core, packages/catalog)
 *   2 infrastructure (packages/eventstore, packages/bus, packages/scheduler, packages/connectors, packages/ledger, packages/read-models: the projection engine)
 *   3 kernel services (packages/processes: the job kit; packages/webhooks: signing, URL policy; packages/messaging: the outbox and its agents)
 *   4 http (packages/http)
 *   5 families (packages/families/<family>: the write side, its read models in read/, its routes and pages in http/)
 *   6 services (services, infra)
 *   7 bin
 * Layers 1-4 are the kernel: it knows no family (docs/architecture.md, "Families").
 */
const layers = [
  { name: 'core', path: '^packages/(core|catalog)/' },
  { name: 'infrastructure', path: '^packages/(eventstore|bus|scheduler|connectors|ledger|read-models)/' },
  { name: 'kernel-services', path: '^packages/(processes|webhooks|messaging)/' },
  { name: 'http', path: '^packages/http/' },
  { name: 'families', path: '^packages/families/' },
  { name: 'services', path: '^(services|infra)/' },
  { name: 'bin', path: '^bin/' },
];

/** The families (packages/families/<family>/); each has its rules below. */
const FAMILIES = require('node:fs')
  .readdirSync(require('node:path').join(__dirname, 'packages/families'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const upward = layers.slice(0, -1).map((layer, i) => ({
  name: `${layer.name}-imports-upward`,
  comment: `${layer.name} may import only from the layers below it (docs/architecture.md, "Layers")`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: layers.slice(i + 1).map((l) => l.path) },
}));

/**
 * A family's rule (docs/architecture.md, "Layers"): its files know another family only by that
 * family's faces: its manifest and write API (packages/families/<family>/index.ts), its query API
 * (read/index.ts) and its edge (http/index.ts: route schemas and helpers other routes reuse).
 */
function familyRule(family) {
  return {
    name: `${family}-imports-another-familys-insides`,
    comment: `The ${family} family knows another family only by its faces: index.ts (for the families it needs: test/unit/families.test.ts), read/index.ts and http/index.ts`,
    severity: 'error',
    from: { path: `^packages/families/${family}/` },
    to: { path: '^packages/families/[^/]+/', pathNot: [`^packages/families/${family}/`, '^packages/families/[^/]+/(index|read/index|http/index)\\.ts$'] },
  };
}

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment: 'Modules that import each other cannot be understood or changed one at a time',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'http-imports-kernel-services',
      comment: 'The HTTP kernel knows neither families nor jobs: API keys, tokens, scopes and operator keys reach it through ports the composition root fills (docs/architecture.md)',
      severity: 'error',
      from: { path: '^packages/http/' },
      to: { path: '^packages/(processes|webhooks|messaging)/' },
    },
    {
      name: 'connector-imports-beyond-its-kernel',
      comment: 'A connector (packages/connectors/<rail>/) knows the rail port and packages/core, nothing else of Sika (docs/connectors.md)',
      severity: 'error',
      from: { path: '^packages/connectors/' },
      to: { path: '^packages/', pathNot: '^packages/(core|connectors)/' },
    },
    {
      name: 'ledger-imports-beyond-core',
      comment: 'The posting engine (packages/ledger) knows no family and no store: packages/core only; families post through recipes in their postings.ts (docs/ledger.md)',
      severity: 'error',
      from: { path: '^packages/ledger/' },
      to: { path: '^(packages|services|bin|infra)/', pathNot: '^packages/(core|ledger)/' },
    },
    {
      name: 'postings-import-beyond-the-kernel',
      comment: 'A family\'s postings.ts is pure: packages/core, packages/ledger and its own folder\'s pure files (docs/ledger.md, "Recipes")',
      severity: 'error',
      from: { path: ['^packages/families/([^/]+)/postings\\.ts$', '^packages/families/([^/]+)/[^/]+/postings\\.ts$'] },
      to: { path: '^(packages|services|bin|infra)/', pathNot: ['^packages/(core|ledger)/', '^packages/families/$1/(allocation|postings)\\.ts$', '^packages/families/$1/[^/]+/(allocation|postings)\\.ts$'] },
    },
    {
      name: 'payouts-import-escrow',
      comment: 'Payouts know no escrow: escrow registers its payout funding source (packages/families/escrow/payout-funding.ts) with packages/families/payouts/payout/funding.ts',
      severity: 'error',
      from: { path: '^packages/families/payouts/' },
      to: { path: '^packages/families/escrow/' },
    },
    ...FAMILIES.map(familyRule),
    {
      name: 'pure-file-imports-effects',
      comment:
        'A family\'s pure files (events, decider, render, postings) decide and describe: they import packages/core, packages/catalog, packages/ledger and pure files, never the store, jobs, HTTP, read models or a manifest (types from another family\'s face are fine: erased) (docs/architecture.md, "Families")',
      severity: 'error',
      from: {
        path: ['^packages/families/[^/]+/(events|decider|render|postings)\\.ts$', '^packages/families/[^/]+/[^/]+/(events|decider|render|postings)\\.ts$'],
        pathNot: '^packages/families/[^/]+/(http|read)/',
      },
      to: {
        path: ['^packages/(eventstore|bus|scheduler|connectors|processes|webhooks|messaging|http|read-models)/', '^services/', '^packages/families/[^/]+/(index|read/.*|http/.*)\\.ts$'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'dashboard-shell-imports-a-family',
      comment: 'The dashboard\'s shell (apps/dashboard/src/shell) knows no family: the families\' pages and navigation reach it through App.tsx (docs/dashboard.md, "Layout")',
      severity: 'error',
      from: { path: '^apps/dashboard/src/shell/' },
      to: { path: '^apps/dashboard/src/families/' },
    },
    {
      name: 'dashboard-family-imports-another-family',
      comment: 'A dashboard family (apps/dashboard/src/families/<family>/) imports the shell and its own folder, never another family\'s: what two families share lives in the shell (docs/dashboard.md, "Layout")',
      severity: 'error',
      from: { path: '^apps/dashboard/src/families/([^/]+)/' },
      to: { path: '^apps/dashboard/src/families/', pathNot: '^apps/dashboard/src/families/$1/' },
    },
    {
      name: 'console-imports-dashboard-beyond-its-shell',
      comment: 'The operator console (apps/dashboard/console) shares the dashboard\'s shell and stylesheet, never a dashboard family\'s page (docs/console.md, "One package, two applications")',
      severity: 'error',
      from: { path: '^apps/dashboard/console/src/' },
      to: { path: '^apps/dashboard/src/', pathNot: ['^apps/dashboard/src/shell/', '^apps/dashboard/src/styles\\.css$'] },
    },
    {
      name: 'dashboard-imports-the-console',
      comment: 'The merchant dashboard knows nothing of the operator console (docs/console.md)',
      severity: 'error',
      from: { path: '^apps/dashboard/src/' },
      to: { path: '^apps/dashboard/console/' },
    },
    {
      name: 'decider-imports-rendering',
      comment: 'Deciders decide domain facts and know nothing of the API\'s shape: the command handler renders the public object after decide (the aggregate\'s render.ts, docs/architecture.md "Decide, render, append")',
      severity: 'error',
      from: { path: '^packages/families/.+/decider\\.ts$' },
      to: { path: '(^|/)(render|present[^/]*|presenters?)\\.ts$' },
    },
    {
      name: 'production-imports-tests',
      comment: 'Only tests import test support code',
      severity: 'error',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // package.json's `#packages/*` imports name the sources for TypeScript (`types`) and dist/ for Node: follow the sources.
    enhancedResolveOptions: { conditionNames: ['types', 'import', 'node', 'default'] },
  },
};
