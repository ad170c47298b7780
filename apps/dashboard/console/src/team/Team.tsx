import type { ConsolePageProps } from '../components.js';

/** Placeholder until the section is built. */
export function Team(_: ConsolePageProps) {
  return (
    <main className="page">
      <h1>Team</h1>
    </main>
  );
}
