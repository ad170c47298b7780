import type { ConsolePageProps } from '../components.js';

/** Placeholder until the section is built. */
export function ReviewQueue(_: ConsolePageProps) {
  return (
    <main className="page">
      <h1>ReviewQueue</h1>
    </main>
  );
}
