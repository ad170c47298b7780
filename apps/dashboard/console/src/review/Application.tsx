import type { ConsolePageProps } from '../components.js';

/** Placeholder until the section is built. */
export function Application(_: ConsolePageProps) {
  return (
    <main className="page">
      <h1>Application</h1>
    </main>
  );
}
