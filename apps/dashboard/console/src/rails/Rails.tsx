import type { ConsolePageProps } from '../components.js';

/** Placeholder until the section is built. */
export function Rails(_: ConsolePageProps) {
  return (
    <main className="page">
      <h1>Rails</h1>
    </main>
  );
}
