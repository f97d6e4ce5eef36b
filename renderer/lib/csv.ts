// CSV generation (RFC 4180): fields with a comma, quote, CR or LF are quoted and quotes doubled;
// lines end with CRLF; text is UTF-8 with a byte-order mark so spreadsheet apps read accents.
// Text fields starting with = + - @ (a spreadsheet formula) get a leading apostrophe.

export type CsvValue = string | number | null | undefined;

export function csvField(v: CsvValue, text = true): string {
  if (v === null || v === undefined) return '';
  let s = typeof v === 'number' ? numberText(v) : v;
  if (text && typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Decimal with a dot and at most two decimals, never exponent notation. */
export function numberText(n: number): string {
  const r = Math.round(n * 100) / 100;
  return Object.is(r, -0) ? '0' : r.toFixed(2).replace(/\.?0+$/, '');
}

export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[], bom = true): string {
  const lines = [header.map((h) => csvField(h)).join(','), ...rows.map((r) => r.map((v) => csvField(v)).join(','))];
  return `${bom ? '\uFEFF' : ''}${lines.join('\r\n')}\r\n`;
}

/** Parse CSV produced by `toCsv` (used by tests and the e2e check). */
export function parseCsv(text: string): string[][] {
  const s = text.replace(/^\uFEFF/, '');
  const rows: string[][] = [];
  let row: string[] = [], f = '', q = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) {
      if (c === '"' && s[i + 1] === '"') { f += '"'; i++; } else if (c === '"') q = false; else f += c;
    } else if (c === '"') q = true;
    else if (c === ',') { row.push(f); f = ''; }
    else if (c === '\r' && s[i + 1] === '\n') { row.push(f); rows.push(row); row = []; f = ''; i++; }
    else if (c === '\n') { row.push(f); rows.push(row); row = []; f = ''; }
    else f += c;
  }
  if (f !== '' || row.length) { row.push(f); rows.push(row); }
  return rows;
}
