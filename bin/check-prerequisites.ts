#!/usr/bin/env -S npx tsx
/**
 * Run first by `npm test`: stops before any suite when something the tests need is missing,
 * with one line per missing piece naming the command that installs it.
 */
import { describeMissing, missingPrerequisites } from './prerequisites/checks';

const missing = missingPrerequisites();
for (const problem of missing) console.error(describeMissing(problem));
process.exitCode = missing.length > 0 ? 1 : 0;
