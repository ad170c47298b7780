import type { ConsolePageProps } from '../components.js';

/** Placeholder until the section is built. */
export function Merchants(_: ConsolePageProps) {
  return (
    <main className="page">
      <h1>Merchants</h1>
    </main>
  );
}
