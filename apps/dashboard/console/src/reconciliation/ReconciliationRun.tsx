import type { ConsolePageProps } from '../components.js';

/** Placeholder until the section is built. */
export function ReconciliationRun(_: ConsolePageProps) {
  return (
    <main className="page">
      <h1>ReconciliationRun</h1>
    </main>
  );
}
