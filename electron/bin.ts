#!/usr/bin/env node
// Entry point of the `bivouac` command (and of `npm start`). It turns on Node's on-disk compile
// cache before anything heavy is loaded, then runs the CLI: the second and later starts skip
// parsing and type stripping (cold start to /health 466 ms -> ~350 ms, docs/decisions.md D13).

import { enableCompileCache } from 'node:module';

enableCompileCache?.();
const { main } = await import('./cli.ts');
main(process.argv.slice(2)).then(
  (code) => { if (code >= 0) process.exit(code); },
  (e: unknown) => {
    process.stderr.write(`bivouac: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    process.exit(1);
  },
);
