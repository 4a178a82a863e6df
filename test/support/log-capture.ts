import { LogLevelThreshold, type LogItem } from '@aws-lambda-powertools/logger';
import { logger } from '#observability/logger';

/**
 * The unit project's log lines, kept instead of printed (jest.config.js, setupFilesAfterEnv): a
 * green `npm run test:unit` prints none. A test that makes the code log a warning or an error on
 * purpose takes those lines with `takeLogs()` and asserts on them; one left untaken fails the test
 * that logged it, with the lines, so a new warning is either expected by its test or a finding.
 */
export interface CapturedLog {
  level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'CRITICAL' | string;
  message: string;
  attributes: Record<string, unknown>;
}

const captured: CapturedLog[] = [];
const LEVEL_NAMES = new Map(Object.entries(LogLevelThreshold).map(([name, threshold]) => [threshold as number, name]));

/** Every logger instance (children too) shares VidGenLogger's printLog. */
type Printing = { printLog(level: number, log: LogItem): void };
const printing = Object.getPrototypeOf(logger) as Printing;

/**
 * Starts keeping the lines; the returned function prints them again (the spy only: a test's own
 * spies stay). A test that spies on process.stdout or stderr itself reads the lines as printed
 * (the format is what it tests): they go through to it, and are its to check.
 */
export function captureLogs(): () => void {
  captured.length = 0;
  const print = printing.printLog;
  const spy = jest.spyOn(printing, 'printLog').mockImplementation(function (this: Printing, level: number, log: LogItem) {
    if (jest.isMockFunction(process.stdout.write) || jest.isMockFunction(process.stderr.write)) return print.call(this, level, log);
    const attributes = log.getAttributes() as Record<string, unknown>;
    captured.push({ level: LEVEL_NAMES.get(level) ?? String(level), message: String(attributes.message), attributes });
  });
  return () => spy.mockRestore();
}

/** The lines logged since the last take (or the test's start), removed from the capture. */
export function takeLogs(): CapturedLog[] {
  return captured.splice(0);
}

/** Warnings and errors no test took: the reason a test fails, with the lines. */
export function untakenWarnings(): CapturedLog[] {
  const warnings = captured.filter((line) => line.level !== 'DEBUG' && line.level !== 'INFO');
  captured.length = 0;
  return warnings;
}
