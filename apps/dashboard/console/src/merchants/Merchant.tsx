import type { ConsolePageProps } from '../components.js';

/** Placeholder until the section is built. */
export function Merchant(_: ConsolePageProps) {
  return (
    <main className="page">
      <h1>Merchant</h1>
    </main>
  );
}
