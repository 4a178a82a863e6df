// Moved (issue 32): the old path for code not rewritten yet (bin/codemods/domain-moves.ts); removed in C15.
export * from './providers/routing';
