// ESLint 9 flat config. Not type-aware on purpose (fast): `npm run lint` = `eslint .`.
// The layering of the code base (docs/architecture.md) is enforced by the local rule
// `bivouac/layering` (eslint-rules/layering.js) plus no-restricted-globals.

import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layering from './eslint-rules/layering.js';

const NODE_GLOBALS = ['process', 'Buffer', 'require', 'module', 'exports', '__dirname', '__filename', 'global', 'setImmediate', 'clearImmediate'];
const DOM_GLOBALS = [
  'window', 'document', 'navigator', 'location', 'history', 'localStorage', 'sessionStorage', 'indexedDB',
  'self', 'alert', 'confirm', 'prompt', 'HTMLElement', 'Element', 'XMLHttpRequest', 'requestAnimationFrame', 'matchMedia',
];
const restrict = (names, why) => names.map((name) => ({ name, message: `${name} is not available here: ${why}` }));

// What each layer may import: a folder or file of the repository (`shared`, `electron/store`),
// '#node' (Node built-ins), '#electron' (the electron package) or '#package' (any other npm
// package). The longest matching key wins.
const SERVER_ONLY_PACKAGES = ['fastify', '@fastify/*', 'pg', 'autocannon', 'electron-builder', 'vite', 'vitest', '@playwright/test'];
const LAYERS = {
  shared: { allow: ['shared', '#package'], denyPackages: SERVER_ONLY_PACKAGES },
  renderer: { allow: ['renderer', 'shared', '#package'], denyPackages: SERVER_ONLY_PACKAGES.filter((p) => p !== 'vite' && p !== 'vitest') },
  // build tooling of the renderer runs in Node
  'renderer/vite.config.ts': { allow: ['*'] },
  electron: { allow: ['electron', 'shared', '#node', '#package'] },
  // inside electron/: http → service → store (D40). The store sees neither the service nor HTTP;
  // the service does not see HTTP; HTTP reaches the store's data only through the service (it may
  // name the store's types: Row, Store, Caller).
  'electron/store': { allow: ['electron/store', 'shared', '#node', '#package'] },
  // Services take typed inputs (issue #30, D323): the request body's tree is decoded in electron/http.
  'electron/service': {
    allow: ['electron/service', 'electron/store', 'shared', '#node', '#package'], deny: ['shared/codec/in.ts'],
    denyWhy: 'services take typed inputs; a body is decoded in electron/http (D323)',
  },
  'electron/http': { allow: ['electron/http', 'electron/service', 'electron/store/types.ts', 'shared', '#node', '#package'] },
  // the replica's sync engine sits beside the service: it reads and writes the store as the service does and
  // calls the service's operations; it never sees HTTP's routes, the shell or an entry point (it is given them).
  'electron/sync': { allow: ['electron/sync', 'electron/service', 'electron/store', 'shared', '#node', '#package'] },
  // the desktop shell (behind its port, electron/shell/port.ts): no store, no routes, no engine; the token
  // vault's interface is the one thing of sync it names. Its in-process service starter (shell/service.ts) is
  // the one composition piece: it starts serve() and exports the account.
  'electron/shell': { allow: ['electron/shell', 'electron/sync/token-vault.ts', 'shared', '#node', '#package'] },
  'electron/shell/service.ts': { allow: ['electron/shell', 'electron/server.ts', 'electron/service/account.ts', 'shared', '#node', '#package'] },
  // the Electron shell: the only files that may import the electron package
  'electron/main.ts': { allow: ['electron', 'shared', '#node', '#package', '#electron'] },
  'electron/desktop.ts': { allow: ['electron', 'shared', '#node', '#package', '#electron'] },
  // a sandboxed preload can require nothing but (parts of) electron; the IPC contract (shared/ipc.ts,
  // no imports of its own) is bundled into it by scripts/package-dir.mjs
  'electron/preload.ts': { allow: ['#electron', 'shared'] },
};

// Unit tests of a layer run under Vitest in Node: they may also use Node and the test tooling.
const TEST_LAYERS = Object.fromEntries(Object.entries(LAYERS).map(([k, v]) => [k, { allow: [...new Set([...v.allow, '#node', '#package'])] }]));
// Tests mirror the source tree under tests/ (D326). The renderer's and shared/'s tests keep their layer's limits
// (plus Node, the test tooling and their own folder of tests; shared/'s client is also tried against the service
// through tests/support/); the others may import anything.
TEST_LAYERS['tests/shared'] = { allow: [...TEST_LAYERS.shared.allow, 'tests/shared', 'tests/support'] };
TEST_LAYERS['tests/renderer'] = { allow: [...TEST_LAYERS.renderer.allow, 'tests/renderer'] };

const NODE_SCRIPT_GLOBALS = Object.fromEntries(
  [...NODE_GLOBALS, 'console', 'URL', 'URLSearchParams', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval',
    'fetch', 'AbortController', 'AbortSignal', 'TextEncoder', 'TextDecoder', 'structuredClone', 'performance', 'queueMicrotask']
    .map((g) => [g, 'readonly']),
);

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', 'release/', 'test-results/', 'playwright-report/', '.data/', 'coverage/', 'bench/results/', '.ci/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: NODE_SCRIPT_GLOBALS },
  },
  {
    plugins: { bivouac: { rules: { layering } } },
    rules: {
      'bivouac/layering': ['error', { layers: LAYERS }],
      // `_`-prefixed names are deliberately unused (handler signatures, destructuring).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      'no-unused-vars': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      'prefer-const': ['error', { destructuring: 'all' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
  {
    files: ['shared/**'],
    rules: {
      'no-restricted-globals': ['error',
        ...restrict(DOM_GLOBALS, 'shared/ runs in Node and in the browser (no DOM)'),
        ...restrict(NODE_GLOBALS, 'shared/ runs in Node and in the browser (no Node)')],
    },
  },
  {
    files: ['renderer/**'],
    ignores: ['renderer/vite.config.ts'],
    rules: {
      'no-restricted-globals': ['error', ...restrict(NODE_GLOBALS.filter((g) => g !== 'process'), 'the renderer is a sandboxed web page (no Node)')],
    },
  },
  {
    files: ['electron/**'],
    ignores: ['electron/main.ts', 'electron/desktop.ts', 'electron/preload.ts'],
    rules: {
      'no-restricted-globals': ['error', ...restrict(DOM_GLOBALS, 'electron/ is Node code (no DOM)')],
    },
  },
  {
    files: ['**/*.test.{ts,tsx}'],
    rules: {
      'bivouac/layering': ['error', { layers: TEST_LAYERS }],
      'no-restricted-globals': 'off',
    },
  },
  {
    files: ['tests/**', 'e2e/**', 'bench/**', '**/*.test.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
