/**
 * Where someone who opens the service's bare address lands: `GET /` redirects (302) to the
 * dashboard; and `make start` says in one plain line where the dashboard and the API are.
 */
import t from '#tap';
import { freePort } from '#packages/core/embedded-postgres.js';
import { startProcess } from '../support/child-process.js';
import { migratedCopy } from '../support/db.js';
import { startService } from '../support/system.js';

t.test('GET / and HEAD / redirect to the dashboard; the dashboard and the API answer as before', async (t) => {
  const svc = await startService(t);
  for (const method of ['GET', 'HEAD']) {
    const res = await fetch(`${svc.baseUrl}/`, { method, redirect: 'manual' });
    t.equal(res.status, 302, `${method} /`);
    t.equal(res.headers.get('location'), '/dashboard/');
    await res.arrayBuffer();
  }
  const followed = await fetch(`${svc.baseUrl}/?from=bookmark`);
  t.equal(new URL(followed.url).pathname, '/dashboard/', 'a browser follows it to the dashboard');
  await followed.arrayBuffer();
  t.equal((await svc.request('GET', '/healthz')).status, 200);
  const unknown = await svc.request('GET', '/nothing-here');
  t.match(unknown, { status: 404, body: { code: 'IKW-RTE-001' } }, 'other paths: as before');
});

t.test("make start's process prints one human line with the dashboard's and the API's addresses", async (t) => {
  const port = await freePort();
  const service = startProcess('services/standalone/main.js', { DATABASE_URL: await migratedCopy(t), PORT: String(port) });
  t.teardown(() => void service.child.kill('SIGKILL'));
  await service.waitFor(/^Sika is serving: .*\n/m);
  const lines = service
    .output()
    .split('\n')
    .filter((line) => !line.startsWith('{'));
  t.same(
    lines.filter(Boolean),
    [
      `Sika is serving: the dashboard at http://localhost:${port}/dashboard/, the operator console at http://localhost:${port}/console/, the API at http://localhost:${port}/api/v1/ (reference: http://localhost:${port}/docs/, http://localhost:${port}/openapi.json)`,
    ],
    'one line that is not JSON',
  );
  const res = await fetch(`http://127.0.0.1:${port}/`, { redirect: 'manual' });
  t.equal(res.status, 302);
  await res.arrayBuffer();
  service.child.kill('SIGTERM');
  t.equal(await service.exit, 0);
});
