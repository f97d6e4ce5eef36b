#!/usr/bin/env node
// Entry point of the `bivouac` command (and of `npm start`). It turns on Node's on-disk compile cache
// before anything heavy is loaded, then runs the CLI: the second and later starts skip parsing and type
// stripping (D13). Plain JavaScript, not TypeScript: Node strips the types of the entry file itself before
// the cache is on, and that alone loads its TypeScript stripper (a WebAssembly module), ~30 ms of every
// start that nothing else needs once every other file comes from the cache (D208).
import { enableCompileCache } from 'node:module';

enableCompileCache?.();
const { main } = await import('./cli.ts');
main(process.argv.slice(2)).then(
  (code) => { if (code >= 0) process.exit(code); },
  (e) => {
    process.stderr.write(`bivouac: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    process.exit(1);
  },
);
