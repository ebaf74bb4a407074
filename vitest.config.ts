import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'src/**/*.test.ts',
      'connectors/**/*.test.ts',
      'harness/**/*.test.ts',
      'bench/**/*.test.ts',
      'test/**/*.test.ts',
      'examples/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // vitest's default is one file per CPU less one: a single file at a time on this 2-CPU machine,
    // where most test time is spent waiting on child processes and database servers. Three files at
    // once took the suite from about 390 s to 156 s here (same 1092 tests).
    maxWorkers: Math.max(3, availableParallelism() - 1),
  },
});
