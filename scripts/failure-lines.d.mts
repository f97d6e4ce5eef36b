// Types of scripts/failure-lines.mjs (a plain Node script that scripts/test.mjs imports) for its test.

export interface Failure { readonly title: string; readonly message: string }
export function errorLines(message: string | undefined): string[];
export function vitestFailures(report: unknown): Failure[];
export function playwrightFailures(report: unknown): Failure[];
export function failureBlock(results: readonly { readonly name: string; readonly failures?: readonly Failure[] }[]): string[];
