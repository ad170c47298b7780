/**
 * Seeds kept as named regression cases: each failed while the simulator was being built, and runs
 * every time (`make sim`, `make test-long`). The name says what it found.
 */
export const REGRESSION_SEEDS: { seed: number; name: string }[] = [];
