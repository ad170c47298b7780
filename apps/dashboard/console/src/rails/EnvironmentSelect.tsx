import { ENVIRONMENTS, type Environment } from './railWords.js';

/** The environment a rails form reads (live or sandbox), each named in the page's words. */
export function EnvironmentSelect({ label, value, onChange, nameOf }: { label: string; value: Environment; onChange: (environment: Environment) => void; nameOf: (environment: Environment) => string }) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value as Environment)}>
        {ENVIRONMENTS.map((env) => (
          <option key={env} value={env}>
            {nameOf(env)}
          </option>
        ))}
      </select>
    </label>
  );
}
