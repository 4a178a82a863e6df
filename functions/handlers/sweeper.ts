import { lifecycle } from '#app-context/lifecycle';
import { expiry } from '#app-context/expiry';
import { expireOutputs } from '#domain/tasks/retention';
import { webhooks } from '#app-context/webhooks';
import { sweep, type SweepReport } from '#domain/tasks/sweep';
import { resendStalledDeliveries } from '#domain/webhooks/deliveries';
import { logger } from '#observability/logger';
import { observe } from '#observability/middleware';
import { powertoolsTelemetry } from '#observability/telemetry';

/** Deliveries resent in one run stop after this long, well inside the function's two minutes. */
const DELIVERY_BUDGET_MS = 45_000;

/** Scheduled every minute (EventBridge on AWS, a timer on the local stack). */
export const handler = observe(async () => {
  // Tasks and webhook deliveries are separate safety nets: neither waits for the other.
  const [tasks, resentDeliveries, expired] = await Promise.all([
    sweep(lifecycle()),
    resendStalledDeliveries(webhooks(), { stopAt: Date.now() + DELIVERY_BUDGET_MS }),
    // Retention: outputs past their accounts' retention, deleted as DELETE deletes them.
    expireOutputs(expiry(), { stopAt: Date.now() + DELIVERY_BUDGET_MS }),
  ]);
  const report = { ...tasks, resentDeliveries, expired: expired.expired, expiryErrors: expired.errors };
  // Counted on every run, idle ones too: a flat line means the sweeper stopped.
  powertoolsTelemetry.count('SweeperTasksExamined', { value: report.examined });
  // Log changes, not heartbeats: a run that only looked at tasks still processing is silent.
  if (changedSomething(report)) logger.info('sweep', { ...report });
  return report;
});

function changedSomething(report: SweepReport & { resentDeliveries: number; expired: number; expiryErrors: number }): boolean {
  return (
    report.timedOut +
      report.lostSubmissions +
      report.resumed +
      report.copied +
      report.repairedStarts +
      report.announced +
      report.resentDeliveries +
      report.purged +
      report.redelivered +
      report.expired +
      report.expiryErrors +
      report.errors >
    0
  );
}
