// The desktop app in a real Electron (Electron 33.2.1, scripts/electron-runtime.mjs; docs/desktop-shell.md):
// Playwright's _electron drives the dev layout (dist/e2e-electron/entry.js) and the packaged test build
// (release/test/linux-unpacked). Needs an X display: scripts/test.mjs runs it under xvfb-run after
// `npm run package:dir` (which compiles the shell and builds both packaged directories).
//   xvfb-run -a -s "-screen 0 1600x1000x24" npx playwright test -c playwright.electron.config.ts
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: './e2e-electron',
  testMatch: /.*\.spec\.ts$/,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  outputDir: 'test-results/electron',
  globalSetup: './e2e-electron/global-setup.ts',
});
