// A string made flat in place (one contiguous run of characters), for texts kept to be written again.
//
// V8 builds `a + b` as a rope (a ConsString) and copies it into one run only when something needs one.
// A text kept for later answers (a list's record texts, D219; the response cache's bodies, D213) and left
// a rope is walked piece by piece at every answer that includes it: ~50 pieces per record, cold in memory
// once thousands are kept (D225). `charCodeAt(0)`, used for this before, flattens only in the interpreter:
// optimized code reads the character through the rope and leaves it as it was.
//
// A regular expression runs on flat strings only, so V8 flattens its subject in place first: the rope
// becomes a pointer to one flat copy (which a young-generation collection then puts in its place; a rope
// already in the old generation stays a pointer, still walked in one step). This is V8's behaviour, not a
// documented API: tests/electron/http/flat-texts.test.ts checks it with V8's own `%StringIsFlat`, after enough calls that
// the callers are optimized, and fails if a Node upgrade stops it.
//
// `exec` is the one of this realm when this module loads, so that code replacing `RegExp.prototype.exec`
// later cannot turn the flattening off. A match leaves its subject in `RegExp.input` (`$_`); a second match
// on '' lets the text go, so that no kept body is held, or readable, through it.

const ANY = /^/;
const EXEC = RegExp.prototype.exec;

/** `s` itself, made flat. */
export function flat(s: string): string {
  EXEC.call(ANY, s);
  EXEC.call(ANY, '');
  return s;
}
