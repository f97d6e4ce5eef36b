#!/usr/bin/env node
// Icons for every platform, made from build/icon.png (512×512 RGBA) with Node alone (no image tools):
//   build/icons/<n>x<n>.png  Linux (AppImage, deb; electron-builder takes the folder)
//   build/icon.ico           Windows (PNG-compressed entries 16–256, as Windows Vista and later read them)
//   build/icon.icns          macOS (PNG entries icp4, icp5, icp6, ic07, ic08, ic09)
//   build/tray.png           the tray icon (32×32), build/tray@2x.png (64×64)
// Run it again after changing build/icon.png: `node scripts/make-icons.mjs`.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { inflateSync, deflateSync } from 'node:zlib';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const build = join(root, 'build');

function crc32(buf) {
  let c, crc = 0xffffffff;
  for (let n = 0; n < buf.length; n++) {
    c = (crc ^ buf[n]) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function decodePng(buf) {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let off = 8, width = 0, height = 0, depth = 0, type = 0, interlace = 0;
  const idat = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const kind = buf.toString('latin1', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (kind === 'IHDR') { width = data.readUInt32BE(0); height = data.readUInt32BE(4); depth = data[8]; type = data[9]; interlace = data[12]; }
    else if (kind === 'IDAT') idat.push(data);
    else if (kind === 'IEND') break;
    off += 12 + len;
  }
  if (depth !== 8 || type !== 6 || interlace !== 0) throw new Error('build/icon.png must be 8-bit RGBA, not interlaced');
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 4, px = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)], line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= 4 ? px[y * stride + x - 4] : 0, b = y > 0 ? px[(y - 1) * stride + x] : 0, c = x >= 4 && y > 0 ? px[(y - 1) * stride + x - 4] : 0;
      let v = line[x];
      if (f === 1) v += a; else if (f === 2) v += b; else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) { const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c); v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      px[y * stride + x] = v & 0xff;
    }
  }
  return { width, height, px };
}

function encodePng(size, px) {
  const chunk = (kind, data) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(kind, 'latin1'), data]);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0); ihdr.writeUInt32BE(size, 4); ihdr[8] = 8; ihdr[9] = 6;
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) px.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

/** Box-filter downscale with premultiplied alpha (no dark fringes). */
function scale(src, size) {
  const out = Buffer.alloc(size * size * 4), f = src.width / size;
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) {
    let r = 0, g = 0, b = 0, a = 0, n = 0;
    for (let sy = Math.floor(y * f); sy < Math.floor((y + 1) * f); sy++) for (let sx = Math.floor(x * f); sx < Math.floor((x + 1) * f); sx++) {
      const i = (sy * src.width + sx) * 4, al = src.px[i + 3];
      r += src.px[i] * al; g += src.px[i + 1] * al; b += src.px[i + 2] * al; a += al; n++;
    }
    const o = (y * size + x) * 4;
    if (a > 0) { out[o] = Math.round(r / a); out[o + 1] = Math.round(g / a); out[o + 2] = Math.round(b / a); }
    out[o + 3] = Math.round(a / n);
  }
  return out;
}

const src = decodePng(readFileSync(join(build, 'icon.png')));
if (src.width !== 512 || src.height !== 512) throw new Error('build/icon.png must be 512×512');
const png = {};
for (const s of [16, 24, 32, 48, 64, 128, 256, 512]) png[s] = s === 512 ? encodePng(512, src.px) : encodePng(s, scale(src, s));

mkdirSync(join(build, 'icons'), { recursive: true });
for (const s of [16, 24, 32, 48, 64, 128, 256, 512]) writeFileSync(join(build, 'icons', `${s}x${s}.png`), png[s]);

// ICO: header, directory entries (0 means 256), then the PNG images.
const icoSizes = [16, 24, 32, 48, 64, 128, 256];
const head = Buffer.alloc(6 + 16 * icoSizes.length);
head.writeUInt16LE(0, 0); head.writeUInt16LE(1, 2); head.writeUInt16LE(icoSizes.length, 4);
let at = head.length;
icoSizes.forEach((s, i) => {
  const e = 6 + i * 16;
  head[e] = s === 256 ? 0 : s; head[e + 1] = s === 256 ? 0 : s; head[e + 2] = 0; head[e + 3] = 0;
  head.writeUInt16LE(1, e + 4); head.writeUInt16LE(32, e + 6);
  head.writeUInt32LE(png[s].length, e + 8); head.writeUInt32LE(at, e + 12);
  at += png[s].length;
});
writeFileSync(join(build, 'icon.ico'), Buffer.concat([head, ...icoSizes.map((s) => png[s])]));

// ICNS: 'icns' + total length, then typed PNG entries.
const icns = [['icp4', 16], ['icp5', 32], ['icp6', 64], ['ic07', 128], ['ic08', 256], ['ic09', 512]].map(([t, s]) => {
  const h = Buffer.alloc(8); h.write(t, 0, 'latin1'); h.writeUInt32BE(png[s].length + 8, 4);
  return Buffer.concat([h, png[s]]);
});
const icnsHead = Buffer.alloc(8); icnsHead.write('icns', 0, 'latin1'); icnsHead.writeUInt32BE(8 + icns.reduce((n, b) => n + b.length, 0), 4);
writeFileSync(join(build, 'icon.icns'), Buffer.concat([icnsHead, ...icns]));

writeFileSync(join(build, 'tray.png'), png[32]);
writeFileSync(join(build, 'tray@2x.png'), png[64]);
process.stdout.write('build/icons/*.png, build/icon.ico, build/icon.icns, build/tray.png, build/tray@2x.png written\n');
