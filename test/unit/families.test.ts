/**
 * The family list (packages/families/index.ts, docs/architecture.md "Families"): built in an order
 * where every family follows the families it needs, and every job kind and bus consumer owned by
 * exactly one family (the outbox's purge by the kernel); the dashboard's and the tests' family folders bear the families' names.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';
import { loadConfig } from '#packages/core/config.js';
import { ManualClock } from '#packages/core/clock.js';
import { buildFamilies, defineFamily, RegisteredOnce, type AnyFamily, type ListedFamily } from '#packages/families/family.js';
import { FAMILIES, KERNEL_PROCESSES, PROCESSES, PUBLIC_EVENTS } from '#packages/families/index.js';
import type { Kernel } from '#packages/families/kernel.js';

/** A kernel whose every part but the configuration, the clock and the public events accepts any call: the families' services are constructed, never run. */
function inertKernel(): Kernel {
  const inert: unknown = new Proxy(function inert() {}, {
    get: (_, property) => (property === 'then' || typeof property === 'symbol' ? undefined : inert),
    apply: () => inert,
    construct: () => inert as object,
  });
  const parts: Partial<Kernel> = { config: loadConfig({}), clock: new ManualClock(new Date('2026-01-01T00:00:00Z')), atClose: () => undefined, deadlines: {}, secretsKey: Buffer.alloc(32), publicEvents: PUBLIC_EVENTS };
  return new Proxy(parts, { get: (target, property) => (property in target ? target[property as keyof Kernel] : inert) }) as Kernel;
}

t.test('the needs graph is acyclic: each family follows the families it needs', async (t) => {
  const seen = new Set<string>();
  for (const family of FAMILIES as readonly AnyFamily[]) {
    for (const need of family.needs as readonly AnyFamily[]) t.ok(seen.has(need.name), `${family.name} needs ${need.name}, listed before it`);
    seen.add(family.name);
  }
  const names = FAMILIES.map((f) => f.name);
  t.equal(new Set(names).size, names.length, `family names are unique: ${names.join(', ')}`);
});

t.test('every job kind is owned by exactly one family, or by the kernel', async (t) => {
  const owners = new Map<string, string[]>();
  const own = (name: string, owner: string) => owners.set(name, [...(owners.get(name) ?? []), owner]);
  for (const family of FAMILIES as readonly AnyFamily[]) for (const process of family.processes ?? []) own(process.job.name, family.name);
  for (const process of KERNEL_PROCESSES) own(process.job.name, 'the kernel');
  for (const process of PROCESSES) t.same(owners.get(process.job.name)?.length, 1, `${process.job.name}: ${owners.get(process.job.name)?.join(', ')}`);
  t.equal(PROCESSES.length, owners.size, 'the scheduler runs every declared kind');
});

t.test('every bus consumer is owned by exactly one family', async (t) => {
  const names = buildFamilies(inertKernel(), FAMILIES).consumers.map((c) => c.name);
  t.ok(names.length > 0);
  t.equal(new Set(names).size, names.length, names.join(', '));
  const consumer = { name: 'shared', checkpointTable: 'bus_checkpoints', handle: async () => undefined };
  const a = defineFamily({ name: 'a', needs: [], build: () => ({}), consumers: () => [consumer] });
  const b = defineFamily({ name: 'b', needs: [], build: () => ({}), consumers: () => [consumer] });
  t.throws(() => buildFamilies(inertKernel(), [a, b]), /The families a and b both declare the consumer shared/);
});

t.test('building refuses a family listed before what it needs, and two families naming one service', async (t) => {
  const kernel = inertKernel();
  const a = defineFamily({ name: 'a', needs: [], build: () => ({ one: 1 }) });
  const b = defineFamily({ name: 'b', needs: [a], build: (_, { one }) => ({ two: one + 1 }) });
  t.same(buildFamilies(kernel, [a, b]).api, { one: 1, two: 2 }, 'a need is given its API');
  t.throws(() => buildFamilies(kernel, [b, a]), /The family b needs a listed before it/);
  const c = defineFamily({ name: 'c', needs: [], build: () => ({ one: 3 }) });
  t.throws(() => buildFamilies(kernel, [a, c]), /a and the family c both name one/);
  const d = defineFamily({ name: 'd', needs: [], build: () => ({ clock: 'mine' }) });
  t.throws(() => buildFamilies(kernel, [d]), /the kernel and the family d both name clock/);
});

t.test("a listed family's read side is its own, and its routers come with it exactly when its folder declares them", async (t) => {
  const root = path.resolve(import.meta.dirname, '../../..');
  for (const family of FAMILIES as readonly ListedFamily[]) {
    if (family.readSide) t.equal(family.readSide.family, family.name, `the read side in ${family.name}'s manifest is its own`);
    const declared = fs.existsSync(path.join(root, 'packages/families', family.name, 'http/routers.ts'));
    t.equal(family.http !== undefined, declared, `${family.name}: routers listed ${declared ? 'from its http/routers.ts' : 'none, as it declares none'}`);
  }
});

// The write side's needs; its read side (read/) and edge (http/) may use any family's faces, being built after every family.
t.test("a family's write side imports another family's manifest only when it needs that family", async (t) => {
  const root = path.resolve(import.meta.dirname, '../../..');
  for (const family of FAMILIES as readonly AnyFamily[]) {
    const folder = path.join(root, 'packages/families', family.name);
    const imported = new Set<string>();
    const writeSide = (f: string) => f.endsWith('.ts') && !/^(read|http)\//.test(f.split(path.sep).join('/'));
    for (const file of fs.readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter(writeSide)) {
      for (const m of fs.readFileSync(path.join(folder, file), 'utf8').matchAll(/from '#packages\/families\/([a-z-]+)\/index\.js'/g)) imported.add(m[1]!);
    }
    t.same([...imported].sort(), (family.needs as readonly AnyFamily[]).map((f) => f.name).sort(), `${family.name} imports the manifests of the families it needs, and no other`);
  }
});

t.test("the dashboard's family folders (apps/dashboard/src/families/<family>/) are named after the service's families", async (t) => {
  const root = path.resolve(import.meta.dirname, '../../..');
  const folders = fs.readdirSync(path.join(root, 'apps/dashboard/src/families'), { withFileTypes: true }).filter((e) => e.isDirectory());
  t.ok(folders.length > 0);
  const names = new Set(FAMILIES.map((f) => f.name as string));
  for (const folder of folders) t.ok(names.has(folder.name), `${folder.name} is a family of packages/families/index.ts`);
});

t.test("the test folders (test/<kind>/<family>/) are named after the service's families; the kernel's tests stay at their kind's root", async (t) => {
  const root = path.resolve(import.meta.dirname, '../../..');
  const names = new Set(FAMILIES.map((f) => f.name as string));
  for (const kind of ['unit', 'integration', 'browser', 'e2e', 'support']) {
    const folders = fs.readdirSync(path.join(root, 'test', kind), { withFileTypes: true }).filter((e) => e.isDirectory());
    for (const folder of folders) t.ok(names.has(folder.name), `test/${kind}/${folder.name} is a family of packages/families/index.ts`);
  }
});

t.test('a registry of exactly one: the one registered answers; none or two is refused', async (t) => {
  const opening = new RegisteredOnce<{ open(): string }>('the opening of a merchant');
  t.throws(() => opening.get(), /No family registered the opening of a merchant/, 'asked before anyone registered');
  opening.register();
  t.throws(() => opening.get(), /No family registered/, 'a family that offers none registers nothing');
  opening.register({ open: () => 'first' });
  t.equal(opening.get().open(), 'first');
  t.throws(() => opening.register({ open: () => 'second' }), /registered by more than one family/, 'a second family is refused');
  t.equal(opening.get().open(), 'first', 'the first stays');
  t.throws(() => new RegisteredOnce<number>('x').register(1, 2), /more than one family/, 'two at once are refused');
});

t.test("the built families register the payers' customers and the merchant opening exactly once", async (t) => {
  const built = buildFamilies(inertKernel(), FAMILIES).api as unknown as { payerCustomers: RegisteredOnce<unknown>; registeredMerchantOpening: RegisteredOnce<unknown> };
  t.ok(built.payerCustomers.get(), 'billing registered its customers with payments');
  t.ok(built.registeredMerchantOpening.get(), 'merchants registered how an organization opens its merchant');
});
