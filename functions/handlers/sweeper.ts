import { lifecycle } from '../app-context/lifecycle';
import { sweep } from '../domain/sweep';

/** Scheduled every minute (EventBridge on AWS, a timer on the local stack). */
export async function handler() {
  const report = await sweep(lifecycle());
  // Idle runs (every minute on AWS, every few seconds locally) are not worth a log line.
  if (report.examined > 0) console.log(JSON.stringify({ level: 'info', message: 'sweep', ...report }));
  return report;
}
