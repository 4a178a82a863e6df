// Moved (issue 32): the old path for code not rewritten yet (bin/codemods/domain-moves.ts); removed in C15.
export * from './accounts/ports';
export * from './billing/ports';
export * from './providers/ports';
export * from './shared/ports';
export * from './tasks/ports';
export * from './uploads/ports';
export * from './webhooks/ports';
