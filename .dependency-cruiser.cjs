/**
 * The layers of docs/architecture.md, enforced: each layer imports only from the layers below it.
 * `make test` runs `depcruise` with this file first and stops on any violation.
 *
 *   1 core (packages/core, packages/catalog)
 *   2 infrastructure (packages/eventstore, packages/bus, packages/scheduler, packages/connectors, packages/ledger)
 *   3 domain (packages/domain, packages/providers)
 *   4 projections
 *   5 processes (packages/processes, packages/webhooks, packages/messaging, packages/automations)
 *   6 http (packages/http)
 *   7 families (packages/families: the manifests and the family list, built on everything below)
 *   8 services (services, infra)
 *   9 bin
 */
const layers = [
  { name: 'core', path: '^packages/(core|catalog)/' },
  { name: 'infrastructure', path: '^packages/(eventstore|bus|scheduler|connectors|ledger)/' },
  { name: 'domain', path: '^packages/(domain|providers)/' },
  { name: 'projections', path: '^projections/' },
  { name: 'processes', path: '^packages/(processes|webhooks|messaging|automations)/' },
  { name: 'http', path: '^packages/http/' },
  { name: 'families', path: '^packages/families/' },
  { name: 'services', path: '^(services|infra)/' },
  { name: 'bin', path: '^bin/' },
];

const upward = layers.slice(0, -1).map((layer, i) => ({
  name: `${layer.name}-imports-upward`,
  comment: `${layer.name} may import only from the layers below it (docs/architecture.md, "Layers")`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: layers.slice(i + 1).map((l) => l.path) },
}));

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
      name: 'kernel-imports-family',
      comment: 'The HTTP kernel knows no family: API keys, tokens, scopes and operator keys reach it through ports the composition root fills (docs/architecture.md)',
      severity: 'error',
      from: { path: '^packages/http/' },
      to: { path: '^(projections|packages/(domain|providers|processes|webhooks|messaging|automations|families))/' },
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
      to: { path: '^(packages|projections|services|bin|infra)/', pathNot: '^packages/(core|ledger)/' },
    },
    {
      name: 'postings-import-beyond-the-kernel',
      comment: "A family's postings.ts is pure: packages/core, packages/ledger and its own folder's pure files (docs/ledger.md, \"Recipes\")",
      severity: 'error',
      from: { path: '^packages/domain/([^/]+)/postings\\.ts$' },
      to: { path: '^(packages|projections|services|bin|infra)/', pathNot: ['^packages/(core|ledger)/', '^packages/domain/$1/(allocation|postings)\\.ts$'] },
    },
    {
      name: 'payouts-import-escrow',
      comment: 'Payouts know no escrow: escrow registers its payout funding source (packages/families/escrow/payout-funding.ts) with packages/families/payouts/payout/funding.ts',
      severity: 'error',
      from: { path: '^packages/families/payouts/payout/' },
      to: { path: '^packages/domain/escrow/' },
    },
    {
      name: 'family-imports-another-familys-insides',
      comment: "A family knows another only by its manifest (packages/families/<family>/index.ts), for the families it needs (test/unit/families.test.ts checks the needs)",
      severity: 'error',
      from: { path: '^packages/families/([^/]+)/' },
      to: { path: '^packages/families/[^/]+/', pathNot: ['^packages/families/$1/', '^packages/families/[^/]+/index\\.ts$'] },
    },
    {
      name: 'dashboard-shell-imports-a-family',
      comment: "The dashboard's shell (apps/dashboard/src/shell) knows no family: the families' pages and navigation reach it through App.tsx (docs/dashboard.md, \"Layout\")",
      severity: 'error',
      from: { path: '^apps/dashboard/src/shell/' },
      to: { path: '^apps/dashboard/src/families/' },
    },
    {
      name: 'dashboard-family-imports-another-family',
      comment: "A dashboard family (apps/dashboard/src/families/<family>/) imports the shell and its own folder, never another family's: what two families share lives in the shell (docs/dashboard.md, \"Layout\")",
      severity: 'error',
      from: { path: '^apps/dashboard/src/families/([^/]+)/' },
      to: { path: '^apps/dashboard/src/families/', pathNot: '^apps/dashboard/src/families/$1/' },
    },
    {
      name: 'decider-imports-rendering',
      comment: "Deciders decide domain facts and know nothing of the API's shape: the command handler renders the public object after decide (the aggregate's render.ts, docs/architecture.md \"Decide, render, append\")",
      severity: 'error',
      from: { path: '^packages/(domain|families)/.+/decider\\.ts$' },
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
  },
};
