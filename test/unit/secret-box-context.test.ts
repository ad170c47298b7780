import t from '#tap';
import { SecretBox } from '#packages/core/secrets.js';

t.test('a value sealed with a context opens only with that context', async (t) => {
  const box = new SecretBox(Buffer.alloc(32, 9));
  const sealed = box.seal('{"secret":"whsec_x"}', 'row-a');
  t.equal(box.open(sealed, 'row-a'), '{"secret":"whsec_x"}');
  t.throws(() => box.open(sealed, 'row-b'), 'another context cannot open it');
  t.throws(() => box.open(sealed), 'nor no context');
  t.equal(box.open(box.seal('plain')), 'plain', 'without a context as before');
});
