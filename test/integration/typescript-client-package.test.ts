/**
 * The typed client as its README says to install it: the package file `make client` makes
 * (npm pack) installed with npm into an empty project, and the README's two examples, taken from
 * the README itself, type-checked there as TypeScript against the installed package's types and
 * run by Node against a real server: the first payment (with the payout and the error), and the
 * webhook receiver verifying a real delivery and refusing a forged one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from '#tap';
import { root } from '../support/child-process.js';
import { README_RECEIVER_TIMEOUT_MS, readmeExamples, receiverVerifies, run, succeeds } from '../support/client-readmes.js';
import { advance, OPERATOR_DELAY_MS } from '../support/system.js';
import { startWebhookService } from '../support/webhooks.js';

const svc = await startWebhookService(t, { webhookTimeoutMs: README_RECEIVER_TIMEOUT_MS, env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

const project = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-client-project-'));
t.teardown(() => fs.rmSync(project, { recursive: true, force: true }));
const examples = readmeExamples('clients/typescript/README.md', 'js');

t.test('make client packs the client; npm installs the file into an empty project; the examples type-check there', async (t) => {
  t.same([...examples.keys()], ['first-payment.mjs', 'receiver.mjs'], "the README's examples");
  const pack = run('make', ['-s', 'client'], root);
  await succeeds(t, pack, 'make client');
  const tarball = path.join(root, pack.output().trim().split('\n').at(-1)!);
  t.match(path.basename(tarball), /^sika-client-\d+\.\d+\.\d+\.tgz$/);

  fs.writeFileSync(path.join(project, 'package.json'), `${JSON.stringify({ name: 'shop', private: true, type: 'module' }, null, 2)}\n`);
  await succeeds(t, run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], project), 'npm install of the package file');
  const installed = JSON.parse(fs.readFileSync(path.join(project, 'node_modules/@sika/client/package.json'), 'utf8')) as { name: string };
  t.equal(installed.name, '@sika/client');
  t.notOk(fs.lstatSync(path.join(project, 'node_modules/@sika/client')).isSymbolicLink(), 'a copy, not a link to the checkout');

  // As TypeScript: each example as a .mts file, checked against the types the package ships.
  for (const [file, code] of examples) {
    fs.writeFileSync(path.join(project, file), code);
    fs.writeFileSync(path.join(project, file.replace(/\.mjs$/, '.mts')), code);
  }
  const tsconfig = {
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'], typeRoots: [path.join(root, 'node_modules/@types')] },
    include: ['*.mts'],
  };
  fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
  await succeeds(t, run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], project), 'the examples type-check as TypeScript');
});

t.test("the README's first payment, run by Node in that project", async (t) => {
  const { key } = await svc.sandboxMerchant();
  const script = run(process.execPath, ['first-payment.mjs'], project, { SIKA_API_KEY: key, SIKA_API_BASE: svc.baseUrl });
  t.teardown(() => void script.child.kill('SIGKILL'));
  await script.waitFor(/^pi_\S+ processing$/m);
  await advance(svc); // the sandbox operator answers, on the service's clock
  await succeeds(t, script, 'the script');
  const lines = script.output().trim().split('\n');
  t.match(lines, [/^pi_\S+ processing$/, /^pi_\S+ succeeded$/, /^po_\S+ in_transit$/, /^404 IKW-RES-001 req_\S+$/]);
  t.equal(lines.length, 4);

  const payout = await svc.request('GET', `/api/v1/payouts/${lines[2]!.split(' ')[0]}`, { key, headers: { 'X-Environment': 'sandbox' } });
  t.match(payout.body, { amount: 1000, currency: 'xof' }, 'the payout of 1,000 XOF, from the payment');
});

t.test("the README's webhook receiver verifies a real delivery and refuses a forged one", async (t) => {
  const { key } = await svc.sandboxMerchant();
  await receiverVerifies(t, svc, key, (env) => run(process.execPath, ['receiver.mjs'], project, { SIKA_API_KEY: key, ...env }));
});
