// `node:http` through `require`, not an ESM import. An ESM import of a builtin builds its ESM facade, which
// reads every export, and `node:http`'s lazy `WebSocket`/`CloseEvent`/`MessageEvent` getters then load
// undici: 45–60 ms of every start, for nothing the service uses (D208). Types come from `import type`.

import { createRequire } from 'node:module';
import type * as Http from 'node:http';

export const http = createRequire(import.meta.url)('node:http') as typeof Http;
