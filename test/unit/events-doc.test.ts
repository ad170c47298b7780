import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { PUBLIC_EVENT_TYPES } from '../../packages/domain/webhook-endpoint/event-types.js';

t.test('docs/events.md lists every public event type of the catalogue, and no other', async (t) => {
  const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/events.md'), 'utf8');
  const documented = [...doc.matchAll(/^\| `([a-z_]+\.[a-z_.]+)` \|/gm)].map((m) => m[1]);
  t.same([...documented].sort(), PUBLIC_EVENT_TYPES.map((e) => e.type).sort());
});
