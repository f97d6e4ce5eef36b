// A string made flat in place (one contiguous run of characters), for texts kept to be written again.
//
// V8 builds `a + b` as a rope (a ConsString) and copies it into one run only when something needs one.
// A text kept for later answers (a list's record texts, D219; the response cache's bodies, D213) and left
// a rope is walked piece by piece at every answer that includes it: ~50 pieces per record, cold in memory
// once thousands are kept (D225). `charCodeAt(0)`, used for this before, flattens only in the interpreter:
// optimized code reads the character through the rope and leaves it as it was.
//
// A regular expression runs on flat strings only, so V8 flattens its subject in place first (the rope
// becomes a pointer to the flat copy, which the collector then puts in its place). This is V8's behaviour,
// not a documented API: tests/flat-texts.test.ts checks it with V8's own `%StringIsFlat`, after enough
// calls that the callers are optimized, and fails if a Node upgrade stops it.

const ANY = /^/;

/** `s` itself, made flat. */
export function flat(s: string): string {
  ANY.test(s);
  return s;
}
