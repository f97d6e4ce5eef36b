// Inline SVG icons (no icon font, no emoji: they render the same everywhere).
const PATHS = {
  comment: 'M3 4h18v12H8l-5 4z',
  trash: 'M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13',
  pencil: 'M4 20l1-5L16 4l4 4L9 19zM14 6l4 4',
  search: 'M10.5 17a6.5 6.5 0 1 0 0-13 6.5 6.5 0 0 0 0 13zM15.5 15.5L21 21',
  people: 'M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zM2 20c0-4 3-6 7-6s7 2 7 6M16 4.5a3.5 3.5 0 0 1 0 6.5M18 14c2.5.5 4 2.5 4 6',
  home: 'M3 11l9-8 9 8M5 9.5V20h5v-6h4v6h5V9.5',
  gear: 'M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM12 2v3M12 19v3M2 12h3M19 12h3M4.9 4.9l2.1 2.1M17 17l2.1 2.1M4.9 19.1L7 17M17 7l2.1-2.1',
} as const;

export function Icon({ name, label }: { name: keyof typeof PATHS; label?: string }) {
  return (
    <svg className="icon" viewBox="0 0 24 24" width="14" height="14" aria-hidden={label ? undefined : true} role={label ? 'img' : undefined} aria-label={label}>
      <path d={PATHS[name]} fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" strokeLinecap="round" />
    </svg>
  );
}
