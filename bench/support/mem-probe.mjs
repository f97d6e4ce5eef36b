// Loaded into a `bivouac serve` child by bench:sync §5 (NODE_OPTIONS=--import): samples
// process.memoryUsage() every 20 ms and, on SIGUSR2, writes one line to stderr:
//   mem-probe {"max":{rss,heapTotal,heapUsed,external,arrayBuffers},"atPeak":{…the same at the highest rss…}}
// (MiB). A sample every 20 ms can miss a spike shorter than that: VmHWM is the peak; this is the breakdown.
import process from 'node:process';
import { getHeapSpaceStatistics } from 'node:v8';

const MiB = 1024 * 1024;
const max = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
let atPeak = { ...max };
let spaces = {};
const sample = () => {
  const m = process.memoryUsage();
  for (const k of Object.keys(max)) max[k] = Math.max(max[k], m[k] / MiB);
  if (m.rss / MiB >= atPeak.rss) {
    atPeak = Object.fromEntries(Object.keys(max).map((k) => [k, m[k] / MiB]));
    spaces = Object.fromEntries(getHeapSpaceStatistics().map((x) => [x.space_name, Math.round(x.space_size / MiB)]));
  }
};
setInterval(sample, 20).unref();
process.on('SIGUSR2', () => {
  sample();
  const r = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v)]));
  process.stderr.write(`mem-probe ${JSON.stringify({ max: r(max), atPeak: r(atPeak), spaces })}\n`);
});
