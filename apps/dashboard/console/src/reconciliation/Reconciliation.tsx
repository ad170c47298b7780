import type { ConsolePageProps } from '../components.js';

/** Placeholder until the section is built. */
export function Reconciliation(_: ConsolePageProps) {
  return (
    <main className="page">
      <h1>Reconciliation</h1>
    </main>
  );
}
