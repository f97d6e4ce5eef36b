import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'node', environment: 'node', include: ['tests/**/*.test.ts', 'shared/**/*.test.ts'], testTimeout: 20_000, hookTimeout: 30_000 } },
      { extends: './renderer/vite.config.ts', test: { name: 'renderer', environment: 'jsdom', include: ['renderer/**/*.test.{ts,tsx}'] } },
    ],
  },
});
