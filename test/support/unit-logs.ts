import { captureLogs, untakenWarnings } from './log-capture';

// The unit project's setupFilesAfterEnv: see log-capture.ts.
let release: (() => void) | undefined;
beforeEach(() => {
  release = captureLogs();
});
afterEach(() => {
  release?.();
  const warnings = untakenWarnings();
  if (warnings.length > 0) {
    throw new Error(
      `This test logged ${warnings.length} warning or error line(s) it did not expect: take them with takeLogs() (#test-support/log-capture) and assert on them, or fix the cause.\n` +
        warnings.map((line) => `  ${line.level} ${line.message} ${JSON.stringify(line.attributes)}`).join('\n'),
    );
  }
});
