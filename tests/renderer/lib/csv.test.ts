import { describe, expect, it } from 'vitest';
import type { TimeEntry } from '../../../shared/client.ts';
import { csvField, numberText, parseCsv, toCsv } from '../../../renderer/lib/csv.ts';
import { hoursPerDay, reportCsv, reportRows, totalsBy } from '../../../renderer/lib/report.ts';

describe('csv', () => {
  it('quotes commas, quotes, CR and LF; leaves plain text alone', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField('')).toBe('');
    expect(csvField(null)).toBe('');
  });
  it('keeps unicode as is (UTF-8 with BOM)', () => {
    const text = toCsv(['Name'], [['Zoë — 山 ✓ 🧗']]);
    expect(text.startsWith('\uFEFF')).toBe(true);
    expect(text).toBe('\uFEFFName\r\nZoë — 山 ✓ 🧗\r\n');
  });
  it('writes decimals with a dot, at most two places, never exponents', () => {
    expect(numberText(1.5)).toBe('1.5');
    expect(numberText(0.25)).toBe('0.25');
    expect(numberText(2)).toBe('2');
    expect(numberText(0.1 + 0.2)).toBe('0.3');
    expect(numberText(1e-7)).toBe('0');
    expect(numberText(1234567.891)).toBe('1234567.89');
    expect(csvField(10.1)).toBe('10.1');
  });
  it('defuses spreadsheet formulas in text cells', () => {
    expect(csvField('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvField('@cmd')).toBe("'@cmd");
    expect(csvField('+1, -2')).toBe('"\'+1, -2"');
  });
  it('round-trips through a parser', () => {
    const rows = [['a,b', 'x"y', 'line1\r\nline2', 'é'], ['', '1.5', ' sp ', '']];
    expect(parseCsv(toCsv(['h1', 'h2', 'h3', 'h4'], rows))).toEqual([['h1', 'h2', 'h3', 'h4'], ...rows]);
  });
});

const te = (id: number, date: string, hours: number, person: string, project: number, item: number | null, description = ''): TimeEntry =>
  ({ id, date, hours, person_id: id, person_name: person, project_id: project, todo_item_id: item, description });

describe('report', () => {
  const names = { project: (id: number) => (id === 1 ? 'Alpha, Ascent' : 'Base'), item: (id: number | null) => (id ? `Item ${id}` : '') };
  const entries = [te(1, '2024-03-05', 1.5, 'Zoë Ürban', 1, 9, 'Review "v2", then ship\nnext'), te(2, '2024-03-04', 0.25, 'Ada Admin', 2, null), te(3, '2024-03-05', 0.1, 'Ada Admin', 1, null)];
  const rows = reportRows(entries, names);

  it('CSV has the shown rows with project and person columns, properly quoted', () => {
    const parsed = parseCsv(reportCsv(rows));
    expect(parsed[0]).toEqual(['Date', 'Person', 'Project', 'Todo item', 'Description', 'Hours']);
    expect(parsed.slice(1)).toEqual([
      ['2024-03-05', 'Zoë Ürban', 'Alpha, Ascent', 'Item 9', 'Review "v2", then ship\nnext', '1.5'],
      ['2024-03-04', 'Ada Admin', 'Base', '', '', '0.25'],
      ['2024-03-05', 'Ada Admin', 'Alpha, Ascent', '', '', '0.1'],
    ]);
  });

  it('totals per person, project and day', () => {
    expect(totalsBy(rows, (r) => r.person)).toEqual([{ key: 'Zoë Ürban', hours: 1.5, count: 1 }, { key: 'Ada Admin', hours: 0.35, count: 2 }]);
    expect(totalsBy(rows, (r) => r.project).map((t) => [t.key, t.hours])).toEqual([['Alpha, Ascent', 1.6], ['Base', 0.25]]);
  });

  it('hours per day fill every date of the range', () => {
    expect(hoursPerDay(rows, '2024-03-03', '2024-03-06')).toEqual([
      { date: '2024-03-03', hours: 0 }, { date: '2024-03-04', hours: 0.25 }, { date: '2024-03-05', hours: 1.6 }, { date: '2024-03-06', hours: 0 },
    ]);
    expect(hoursPerDay(rows).map((d) => d.date)).toEqual(['2024-03-04', '2024-03-05']);
    expect(hoursPerDay([])).toEqual([]);
  });
});
