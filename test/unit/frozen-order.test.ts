import t from '#tap';
import { inFrozenOrder } from '#packages/core/frozen-order.js';

const named = (...names: string[]) => names.map((name) => ({ name }));
const order = (items: { name: string }[], frozen: string[]) => inFrozenOrder(items, frozen, (item) => item.name, 'read models').map((item) => item.name);

t.test('the frozen names keep their order whatever the lists give; the others follow in the lists’ order', async (t) => {
  t.same(order(named('c', 'new-2', 'a', 'b', 'new-1'), ['a', 'b', 'c']), ['a', 'b', 'c', 'new-2', 'new-1']);
  t.same(order(named('b', 'a'), ['a', 'b']), ['a', 'b'], 'nothing new: exactly the frozen order');
});

t.test('a frozen name no list declares any more is refused: its read model cannot vanish', async (t) => {
  t.throws(() => order(named('a'), ['a', 'b']), { message: 'read models no list declares any more: b' });
});

t.test('two items of one name are refused', async (t) => {
  t.throws(() => order(named('a', 'b', 'a'), ['a', 'b']), { message: 'Two read models are named a' });
  t.throws(() => order(named('a', 'x', 'x'), ['a']), { message: 'Two read models are named x' }, 'new ones too');
});
