import { defineConfig } from 'vitest/config';

// Four projects, each with only what its tests need (`npm run test:<name>` runs one; `npm test` all):
//   unit         pure logic: no DynamoDB Local, no emulator, no network (test/support/no-network.ts)
//   integration  repositories and domain services against DynamoDB Local and the SQS/S3 emulator
//   infra        synth, cdk-nag, packaging, and the deploy proof (which runs the local runtime)
//   e2e          the local runtime over real HTTP, `npm start`, and the widget in Chromium
// Projects that need DynamoDB Local and the emulator share one of each per run (global-setup.ts).

const shared = {
  setupFiles: ['test/support/setup.ts'],
  pool: 'forks' as const,
  // One runtime per worker process, shared by the files it runs (each test makes its own accounts).
  isolate: false,
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // A failing test is reported, never retried into a pass.
  retry: 0,
};

const services = ['test/support/global-setup.ts'];

export default defineConfig({
  test: {
    // The run's own: lists the tests skipped for something the machine lacks, and why (no Java here).
    globalSetup: ['test/support/skip-report.ts'],
    maxWorkers: 2,
    projects: [
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          setupFiles: [...shared.setupFiles, 'test/support/no-network.ts'],
        },
      },
      { test: { ...shared, name: 'integration', include: ['test/integration/**/*.test.ts'], globalSetup: services } },
      { test: { ...shared, name: 'infra', include: ['test/infra/**/*.test.ts'], globalSetup: services } },
      { test: { ...shared, name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: services } },
    ],
  },
});
