// The layering rules of eslint.config.js (eslint-rules/layering.js + no-restricted-globals), run through
// ESLint's API on small snippets placed (virtually) in each layer.

import { describe, it, expect, beforeAll } from 'vitest';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

/** Messages of the layering-related rules for `code` linted as if it were the file `file`. */
async function layering(file: string, code: string): Promise<string[]> {
  const [res] = await eslint.lintText(code, { filePath: `${root}/${file}` });
  return res.messages
    .filter((m) => m.ruleId === 'bivouac/layering' || m.ruleId === 'no-restricted-globals' || m.fatal)
    .map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
}

describe('shared/ imports neither Node, nor electron, nor the other layers, nor the DOM', () => {
  it.each([
    ["import { readFileSync } from 'node:fs';", 'node:fs'],
    ["import { join } from 'path';", "'path'"],
    ["import fs from 'fs/promises';", "'fs/promises'"],
    ["import { app } from 'electron';", "'electron'"],
    ["import { serve } from '../../electron/server.ts';", 'electron/ layer'],
    ["import { openStore } from '../../electron/store/sqlite.ts';", 'electron/ layer'],
    ["export { App } from '../../renderer/App.tsx';", 'renderer/ layer'],
    ["const m = await import('node:os');", 'node:os'],
    ["import Fastify from 'fastify';", "'fastify'"],
  ])('%s is reported', async (code, expected) => {
    const msgs = await layering('shared/codec/example.ts', `${code}\nexport {};\n`);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toContain('bivouac/layering');
    expect(msgs[0]).toContain(expected);
  });

  it.each(['window.alert(1);', 'document.title = "x";', 'localStorage.getItem("k");', 'process.exit(1);', 'Buffer.from("x");'])(
    'the global in %s is reported', async (code) => {
      const msgs = await layering('shared/example.ts', `${code}\nexport {};\n`);
      expect(msgs).toHaveLength(1);
      expect(msgs[0]).toContain('no-restricted-globals');
    });

  it('allows shared/ files and portable packages', async () => {
    const code = [
      "import { RESOURCES } from './registry.ts';",
      "import { toXml } from './codec/out.ts';",
      "import { XMLParser } from 'fast-xml-parser';",
      "export * from './values.ts';",
      'export const f = (): unknown => [RESOURCES, toXml, XMLParser, fetch];',
    ].join('\n');
    expect(await layering('shared/client.ts', code)).toEqual([]);
  });

  it('lets unit tests in shared/ use Node and Vitest', async () => {
    const code = "import { it } from 'vitest';\nimport { readFileSync } from 'node:fs';\nit('x', () => { Buffer.from(String(readFileSync)); });\n";
    expect(await layering('shared/client.test.ts', code)).toEqual([]);
  });
});

describe('renderer/ talks to the server only through shared/', () => {
  it.each([
    ["import { serve } from '../../electron/server.ts';", 'electron/ layer'],
    ["import type { Store } from '../../electron/store/types.ts';", 'electron/ layer'],
    ["import { ipcRenderer } from 'electron';", "'electron'"],
    ["import { join } from 'node:path';", 'node:path'],
    ["import { EventEmitter } from 'events';", "'events'"],
  ])('%s is reported', async (code, expected) => {
    const msgs = await layering('renderer/src/Board.tsx', `${code}\nexport {};\n`);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toContain(expected);
  });

  it('allows shared/, renderer/ and browser packages', async () => {
    const code = [
      "import { create } from 'zustand';",
      "import { createRoot } from 'react-dom/client';",
      "import { Client } from '../../shared/client.ts';",
      "import { Board } from './Board.tsx';",
      'export const x = [create, createRoot, Client, Board, window.location.href];',
    ].join('\n');
    expect(await layering('renderer/src/main.tsx', code)).toEqual([]);
  });

  it('lets the Vite config (Node tooling) import Node built-ins', async () => {
    expect(await layering('renderer/vite.config.ts', "import { fileURLToPath } from 'node:url';\nexport default fileURLToPath;\n")).toEqual([]);
  });
});

describe('electron/: Node code, electron only in the shell', () => {
  it.each([
    ['electron/service/example.ts', "import { app } from 'electron';", "'electron'"],
    ['electron/server.ts', "import { shell } from 'electron/main';", "'electron/main'"],
    ['electron/http/plugins/example.ts', "import { Board } from '../../../renderer/src/Board.tsx';", 'renderer/ layer'],
    ['electron/preload.ts', "import { readFileSync } from 'node:fs';", 'node:fs'],
    ['electron/preload.ts', "import { serve } from './server.ts';", 'electron/ layer'],
  ])('%s: %s is reported', async (file, code, expected) => {
    const msgs = await layering(file, `${code}\nexport {};\n`);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toContain('bivouac/layering');
    expect(msgs[0]).toContain(expected);
  });

  it('reports DOM globals in the service', async () => {
    const msgs = await layering('electron/service/example.ts', 'export const t = document.title;\n');
    expect(msgs).toEqual([expect.stringContaining('no-restricted-globals')]);
  });

  it('allows Node, shared/ and packages in the service, and electron in main.ts and preload.ts', async () => {
    const service = [
      "import { join } from 'node:path';",
      "import { readFile } from 'fs/promises';",
      "import Fastify from 'fastify';",
      "import { RESOURCES } from '../../shared/registry.ts';",
      "import { notFound } from './context.ts';",
      'export const x = [join, readFile, Fastify, RESOURCES, notFound];',
    ].join('\n');
    expect(await layering('electron/service/example.ts', service)).toEqual([]);
    const main = "import { app, BrowserWindow } from 'electron';\nimport { serve } from './server.ts';\nimport { join } from 'node:path';\nexport const x = [app, BrowserWindow, serve, join];\n";
    expect(await layering('electron/main.ts', main)).toEqual([]);
    expect(await layering('electron/preload.ts', "import { contextBridge } from 'electron';\nexport const x = contextBridge;\n")).toEqual([]);
  });
});

describe('inside electron/: http → service → store', () => {
  it.each([
    ['electron/store/queries/example.ts', "import type { Caller } from '../../service/context.ts';", 'electron/service/ layer'],
    ['electron/store/queries/example.ts', "import { route } from '../../http/api.ts';", 'electron/http/ layer'],
    ['electron/store/sqlite.ts', "import { serve } from '../server.ts';", 'electron/ layer'],
    ['electron/store/sqlite.ts', "export { ApiError } from '../service/context.ts';", 'electron/service/ layer'],
    ['electron/store/sqlite.ts', "type X = import('../service/context.ts').Ctx;", 'electron/service/ layer'],
    ['electron/service/posts.ts', "import { route } from '../http/api.ts';", 'electron/http/ layer'],
    ['electron/service/posts.ts', "import { ResponseCache } from '../http/cache.ts';", 'electron/http/ layer'],
    ['electron/service/posts.ts', "import { serve } from '../server.ts';", 'electron/ layer'],
    ['electron/http/plugins/posts.ts', "import { getPost } from '../../store/queries/posts.ts';", 'electron/store/ layer'],
    ['electron/http/app.ts', "import { openStore } from '../store/sqlite.ts';", 'electron/store/ layer'],
  ])('%s: %s is reported', async (file, code, expected) => {
    const msgs = await layering(file, `${code}\nexport {};\n`);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toContain('bivouac/layering');
    expect(msgs[0]).toContain(expected);
  });

  it('allows each layer what lies below it', async () => {
    const store = [
      "import type { Caller, Queryable } from '../types.ts';",
      "import { projectVisible } from './access.ts';",
      "import { RESOURCES } from '../../../shared/registry.ts';",
      "import { DatabaseSync } from 'node:sqlite';",
      "import pg from 'pg';",
      'export const x = (c: Caller, q: Queryable): unknown => [c, q, projectVisible, RESOURCES, DatabaseSync, pg];',
    ].join('\n');
    expect(await layering('electron/store/queries/example.ts', store)).toEqual([]);
    const service = [
      "import type { Caller, Store } from '../store/types.ts';",
      "import { getPost } from '../store/queries/posts.ts';",
      "import { notFound } from './context.ts';",
      'export const x = (c: Caller, s: Store): unknown => [c, s, getPost, notFound];',
    ].join('\n');
    expect(await layering('electron/service/example.ts', service)).toEqual([]);
    const http = [
      "import type { Row, Store } from '../../store/types.ts';",
      "import * as svc from '../../service/posts.ts';",
      "import { route } from '../api.ts';",
      "import Fastify from 'fastify';",
      'export const x = (r: Row, s: Store): unknown => [r, s, svc, route, Fastify];',
    ].join('\n');
    expect(await layering('electron/http/plugins/example.ts', http)).toEqual([]);
  });

  it.each([
    ['electron/sync/engine.ts', "import { route } from '../http/api.ts';", 'electron/http/ layer'],
    ['electron/sync/live.ts', "import { Shell } from '../shell/shell.ts';", 'electron/shell/ layer'],
    ['electron/sync/engine.ts', "import { serve } from '../server.ts';", 'electron/ layer'],
    ['electron/sync/engine.ts', "import { app } from 'electron';", "'electron'"],
    ['electron/shell/shell.ts', "import { openStore } from '../store/sqlite.ts';", 'electron/store/ layer'],
    ['electron/shell/shell.ts', "import { SyncEngine } from '../sync/engine.ts';", 'electron/sync/ layer'],
    ['electron/shell/menus.ts', "import { route } from '../http/api.ts';", 'electron/http/ layer'],
    ['electron/shell/menus.ts', "import * as svc from '../service/posts.ts';", 'electron/service/ layer'],
    ['electron/shell/shell.ts', "import { serve } from '../server.ts';", 'electron/ layer'],
    ['electron/shell/shell.ts', "import { BrowserWindow } from 'electron';", "'electron'"],
    ['electron/shell/service.ts', "import { openStore } from '../store/sqlite.ts';", 'electron/store/ layer'],
  ])('sync and shell: %s: %s is reported', async (file, code, expected) => {
    const msgs = await layering(file, `${code}\nexport {};\n`);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toContain('bivouac/layering');
    expect(msgs[0]).toContain(expected);
  });

  it('allows sync the service and the store, the shell its port and the token vault, its starter serve()', async () => {
    const sync = [
      "import type { Store } from '../store/types.ts';",
      "import { listPeople } from '../store/queries/people.ts';",
      "import { signIn } from '../service/auth.ts';",
      "import { plan } from '../../shared/sync/plan.ts';",
      "import { Remote } from './remote.ts';",
      "import { createHash } from 'node:crypto';",
      'export const x = (s: Store): unknown => [s, listPeople, signIn, plan, Remote, createHash];',
    ].join('\n');
    expect(await layering('electron/sync/engine.ts', sync)).toEqual([]);
    const shell = [
      "import type { ElectronPort } from './port.ts';",
      "import type { TokenVault } from '../sync/token-vault.ts';",
      "import { INVOKE_CHANNELS } from '../../shared/ipc.ts';",
      "import { spawn } from 'node:child_process';",
      'export const x = (p: ElectronPort, v: TokenVault): unknown => [p, v, INVOKE_CHANNELS, spawn];',
    ].join('\n');
    expect(await layering('electron/shell/shell.ts', shell)).toEqual([]);
    const starter = "import { serve } from '../server.ts';\nimport { exportAccount } from '../service/account.ts';\nexport const x = [serve, exportAccount];\n";
    expect(await layering('electron/shell/service.ts', starter)).toEqual([]);
  });

  it('lets the entry points above the layers wire them together', async () => {
    const code = [
      "import { openStore } from './store/sqlite.ts';",
      "import { buildApp } from './http/app.ts';",
      "import { importSeed } from './service/account.ts';",
      'export const x = [openStore, buildApp, importSeed];',
    ].join('\n');
    expect(await layering('electron/server.ts', code)).toEqual([]);
  });
});

it('SQL is written only in electron/store/ (docs/architecture.md)', async () => {
  const { readdir, readFile } = await import('node:fs/promises');
  const files = (await readdir(`${root}/electron`, { recursive: true })).filter((f) => f.endsWith('.ts') && !f.startsWith('store/'));
  const sql = /['"`]\s*(SELECT\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|WITH\s+\w+\s+AS\s)/;
  const found: string[] = [];
  for (const f of files) {
    (await readFile(`${root}/electron/${f}`, 'utf8')).split('\n').forEach((line, i) => { if (sql.test(line)) found.push(`electron/${f}:${i + 1}`); });
  }
  expect(files.length).toBeGreaterThan(10);
  expect(found).toEqual([]);
});

it('no SQL condition outside electron/store/ either: a `WHERE` fragment handed to a query is SQL (issue #30)', async () => {
  const { readdir, readFile } = await import('node:fs/promises');
  const files = (await readdir(`${root}/electron`, { recursive: true })).filter((f) => f.endsWith('.ts') && !f.startsWith('store/'));
  // `'project_id = ?'`, `` `${col} = ?` ``, `'… AND id IN ('`, `'x IS NULL'` in a string
  const fragment = /['"`][^'"`]*(\b[a-z_]+|\})\s*(=\s*\?|IN\s*\(|IS\s+(NOT\s+)?NULL\b)/;
  expect(fragment.test("children.push([c, 'project_id = ?', [id]]);")).toBe(true);
  expect(fragment.test('rowsWhere(w, t, `${col} = ?`, [id])')).toBe(true);
  const found: string[] = [];
  for (const f of files) {
    (await readFile(`${root}/electron/${f}`, 'utf8')).split('\n').forEach((line, i) => { if (fragment.test(line)) found.push(`electron/${f}:${i + 1}`); });
  }
  expect(found).toEqual([]);
});

it('no module-level mutable state in electron/ outside the shell (docs/architecture.md, D42)', async () => {
  const { readdir, readFile } = await import('node:fs/promises');
  const files = (await readdir(`${root}/electron`, { recursive: true }))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'main.ts');
  // top-level `let`/`var`, and top-level maps (a cache), whether exported or not; a constant lookup table
  // declared read-only (`const X: ReadonlyMap<…> = new Map(…)`) is not state
  const state = /^(export\s+)?(let|var)\s|^(export\s+)?const\s+\w+(\s*:(?!\s*Readonly)[^=]+)?\s*=\s*new\s+(Map|WeakMap|WeakSet|WeakRef)\b/;
  const found: string[] = [];
  for (const f of files) {
    (await readFile(`${root}/electron/${f}`, 'utf8')).split('\n').forEach((line, i) => { if (state.test(line)) found.push(`electron/${f}:${i + 1}`); });
  }
  expect(found).toEqual([]);
});

it('leaves tests, scripts and benches free to import anything', async () => {
  const code = "import { app } from 'electron';\nimport { serve } from '../electron/server.ts';\nimport { readFileSync } from 'node:fs';\nexport const x = [app, serve, readFileSync];\n";
  expect(await layering('tests/example.test.ts', code)).toEqual([]);
  expect(await layering('bench/example.ts', code)).toEqual([]);
});

it('the repository itself lints clean for the layering rules', async () => {
  const results = await eslint.lintFiles(['shared', 'electron', ...(await dirExists('renderer') ? ['renderer'] : [])]);
  const found = results.flatMap((r) => r.messages
    .filter((m) => m.ruleId === 'bivouac/layering' || m.ruleId === 'no-restricted-globals')
    .map((m) => `${r.filePath.slice(root.length)}:${m.line} ${m.message}`));
  expect(found).toEqual([]);
}, 120_000); // lints the whole tree with type information: slow on a busy 2-core machine

async function dirExists(rel: string): Promise<boolean> {
  const { stat } = await import('node:fs/promises');
  return stat(`${root}/${rel}`).then((s) => s.isDirectory(), () => false);
}
