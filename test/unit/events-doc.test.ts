import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';
import { PUBLIC_EVENTS } from '#packages/families/index.js';

t.test('docs/events.md lists every public event type of the catalogue, and no other', async (t) => {
  const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/events.md'), 'utf8');
  const documented = [...doc.matchAll(/^\| `([a-z_]+\.[a-z_.]+)` \|/gm)].map((m) => m[1]);
  t.same([...documented].sort(), PUBLIC_EVENTS.types.map((e) => e.type).sort());
});
