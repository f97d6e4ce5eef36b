// Loaded into the service by bench/tail.ts (`node --import`, with an IPC channel): records, on the clock
// every process of this machine shares (CLOCK_MONOTONIC, ms), the service's garbage collections, the times
// its event loop was held (a 1 ms timer firing more than 2 ms late), and the checkpoint gate's waits (D180,
// `bivouac:checkpoint-gate`). Answers `{ tail: n }` with what it recorded since the last asking.

import { subscribe } from 'node:diagnostics_channel';
import { PerformanceObserver } from 'node:perf_hooks';

const base = Number(process.hrtime.bigint()) / 1e6 - performance.now();
const gcs = [];
const held = [];
const gates = [];
let gateFrom = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push({ kind: e.detail?.kind ?? 0, from: base + e.startTime, to: base + e.startTime + e.duration });
}).observe({ entryTypes: ['gc'] });
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  if (now - last > 3) held.push({ from: base + last + 1, to: base + now });
  last = now;
}, 1).unref();
subscribe('bivouac:checkpoint-gate', (m) => {
  const now = base + performance.now();
  if (m.waiting) gateFrom = now;
  else if (gateFrom) { gates.push({ from: gateFrom, to: now }); gateFrom = 0; }
});
process.channel?.unref();
process.on('message', (m) => {
  if (typeof m?.tail !== 'number') return;
  process.send?.({ tail: m.tail, gcs: gcs.splice(0), held: held.splice(0), gates: gates.splice(0) });
});
