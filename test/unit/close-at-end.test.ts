/** closeAtEnd (test/support/browser.ts): a page's close at a test's end, bounded so a stuck one cannot hang the file. */
import t from '#tap';
import { closeAtEnd } from '../support/browser.js';

/** What closeAtEnd wrote to stderr while `run` ran. */
async function stderrOf(run: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  const write = console.error;
  console.error = (...args: unknown[]) => lines.push(args.join(' '));
  try {
    await run();
  } finally {
    console.error = write;
  }
  return lines;
}

t.test('a page whose close never settles is left after the bound, and the test ends', async (t) => {
  const started = Date.now();
  const said = await stderrOf(() => t.test('holds a stuck page', async (t) => closeAtEnd(t, { close: () => new Promise<void>(() => undefined) }, 50)));
  t.ok(Date.now() - started < 5_000, 'ended after the bound, not at the file’s limit');
  t.match(said, [/holds a stuck page: a page's close did not settle in 0.05 s/], 'and says so on stderr');
});

t.test('a page that closes is closed at the end, silently', async (t) => {
  let closed = 0;
  const said = await stderrOf(() =>
    t.test('holds a page', async (t) =>
      closeAtEnd(t, {
        close: async () => {
          closed++;
        },
      }),
    ),
  );
  t.equal(closed, 1, 'closed once, when its test ended');
  t.same(said, [], 'nothing on stderr');
});
