/**
 * What the client suites share (the TypeScript client's package test, the Python client's test):
 * commands of this machine run as a user would, the README's examples taken from its code blocks,
 * and the README's webhook receiver tried against a real delivery and a forged one.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { root, watched, type ServiceProcess } from './child-process.js';
import { freePort, type TestService } from './system.js';
import { createEndpoint, createIntentEvent, settle } from './webhooks.js';

/**
 * The delivery deadline of the client suites' services: the service's default. A README's receiver
 * is a process of its own, whose first request loads its modules cold; on a loaded machine that
 * once took longer than the webhook suites' 300 ms, and the delivery it verified was recorded as
 * timed out.
 */
export const README_RECEIVER_TIMEOUT_MS = 15_000;

/** A command of this machine (npm, make, python) with the test's environment, in `cwd`. */
export function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): ServiceProcess {
  return watched(spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** Passes once `p` exits 0; otherwise fails the test there, with its output (what follows would need it). */
export async function succeeds(t: Test, p: ServiceProcess, what: string): Promise<void> {
  const code = await p.exit;
  if (code !== 0) throw new Error(`${what}: exit ${code}\n${p.output()}`);
  t.pass(what);
}

/**
 * A README's examples: each code block of `language` whose first line is a comment naming its
 * file (```python / `# first_payment.py`, ```js / `// first-payment.mjs`), by file name.
 */
export function readmeExamples(readme: string, language: 'python' | 'js'): Map<string, string> {
  const text = fs.readFileSync(path.join(root, readme), 'utf8');
  const comment = language === 'python' ? '#' : '\\/\\/';
  const blocks = new RegExp(`\`\`\`${language}\\n${comment} ([\\w-]+\\.\\w+)\\n([\\s\\S]*?)\`\`\``, 'g');
  return new Map([...text.matchAll(blocks)].map((m) => [m[1]!, m[2]!]));
}

/**
 * The README's receiver, started by `start` with its secret and port: a real delivery of
 * `payment_intent.created` is verified (it prints the event) and answered 204; a request the
 * secret did not sign is refused with 400.
 */
export async function receiverVerifies(t: Test, svc: TestService, key: string, start: (env: { SIKA_WEBHOOK_SECRET: string; PORT: string }) => ServiceProcess): Promise<void> {
  const port = await freePort();
  const endpoint = await createEndpoint(svc, key, `http://127.0.0.1:${port}/webhooks`, ['payment_intent.created']);
  const receiver = start({ SIKA_WEBHOOK_SECRET: endpoint.secret, PORT: String(port) });
  t.teardown(() => void receiver.child.kill('SIGKILL'));
  await receiver.waitFor(new RegExp(`Receiving webhooks on port ${port}\n`));

  const intent = await createIntentEvent(svc, key);
  await settle(svc);
  await receiver.waitFor(/^payment_intent\.created evt_\S+$/m);
  const deliveries = await svc.request('GET', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries`, { key });
  const attempts = await svc.system.knex('webhook_attempts').whereIn(
    'delivery_id',
    deliveries.body.data.map((d: { id: string }) => d.id),
  );
  t.match(deliveries.body.data, [{ status: 'succeeded' }], 'answered 204: a delivery that succeeded', { attempts });
  const event = /^payment_intent\.created (evt_\S+)$/m.exec(receiver.output())![1]!;
  t.match((await svc.request('GET', `/api/v1/events/${event}`, { key })).body, { data: { id: intent.id } });

  const forged = await fetch(`http://127.0.0.1:${port}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` },
    body: '{"type":"payout.paid"}',
  });
  t.equal(forged.status, 400, 'a request the secret did not sign is refused');
  receiver.child.kill('SIGTERM');
  await receiver.exit;
}
