import { lifecycle } from '../app-context/lifecycle';
import { sweep, type SweepReport } from '../domain/sweep';
import { logger } from '../observability/logger';
import { observe } from '../observability/middleware';
import { powertoolsTelemetry } from '../observability/telemetry';

/** Scheduled every minute (EventBridge on AWS, a timer on the local stack). */
export const handler = observe(async () => {
  const report = await sweep(lifecycle());
  // Counted on every run, idle ones too: a flat line means the sweeper stopped.
  powertoolsTelemetry.count('SweeperTasksExamined', { value: report.examined });
  // Log changes, not heartbeats: a run that only looked at tasks still processing is silent.
  if (changedSomething(report)) logger.info('sweep', { ...report });
  return report;
});

function changedSomething(report: SweepReport): boolean {
  return report.timedOut + report.lostSubmissions + report.resumed + report.copied + report.repairedStarts + report.announced + report.errors > 0;
}
