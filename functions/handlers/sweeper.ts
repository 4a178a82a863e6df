import { appContext } from '../app-context';
import { sweep } from '../domain/sweep';

/** Scheduled every minute (EventBridge on AWS, a timer on the local stack). */
export async function handler() {
  const report = await sweep(appContext().lifecycle);
  console.log(JSON.stringify({ level: 'info', message: 'sweep', ...report }));
  return report;
}
