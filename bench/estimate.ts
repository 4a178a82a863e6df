/**
 * How good `estimated_completion_at` is (issue 34): on the local stack, the simulated provider
 * with a fixed delay and no lanes, 20 tasks run one after another to leave a history, then the
 * next 20 each record the estimate their start answered with (E) and when they completed (F).
 * The figure is |E - F| / (F - created_at), its median (goal: at most 20 %) and p90.
 * Run: npm run bench:estimate   (figures only; no pass/fail). ESTIMATE_DELAY_SECONDS sets the delay (default 4).
 */
import { newApiKey, percentile, runBench, startBenchStack } from './load';

const WARM_UP = 20;
const MEASURED = 20;
const DELAY_SECONDS = process.env.ESTIMATE_DELAY_SECONDS ?? '4';
const BODY = { prompt: 'a paper boat on a canal', duration: 3, resolution: '480p' };

interface View {
  video_id: string;
  status: string;
  created_at: string;
  completed_at?: string | null;
  estimated_completion_at?: string | null;
}
type Json = { data: View };

async function main(): Promise<void> {
  const stack = await startBenchStack('vidgen-bench-estimate', { SIM_DELAY_SECONDS: DELAY_SECONDS, SIM_CONCURRENCY: '0' });
  try {
    const { apiKey } = await newApiKey(stack, 1_000_000, 1_000_000);
    const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
    const start = async (): Promise<View> => {
      const response = await fetch(`${stack.baseUrl}/generate`, { method: 'POST', headers, body: JSON.stringify(BODY) });
      if (response.status !== 200) throw new Error(`start answered ${response.status}: ${await response.text()}`);
      return ((await response.json()) as Json).data;
    };
    // Polled as a client would (the provider's callbacks end it too; a GET also asks the provider).
    const final = async (id: string): Promise<View> => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const task = ((await (await fetch(`${stack.baseUrl}/videos/${id}`, { headers })).json()) as Json).data;
        if (task.status !== 'processing') return task;
        if (Date.now() > deadline) throw new Error(`${id} still processing after 120 s.`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    for (let i = 0; i < WARM_UP; i += 1) {
      const task = await final((await start()).video_id);
      if (task.status !== 'completed') throw new Error(`warm-up ${task.video_id} ended ${task.status}`);
    }
    const errors: number[] = [];
    const rows: string[] = [];
    for (let i = 0; i < MEASURED; i += 1) {
      const started = await start();
      const estimate = started.estimated_completion_at ?? null;
      const ended = await final(started.video_id);
      if (ended.status !== 'completed' || estimate === null) throw new Error(`${started.video_id}: ${ended.status}, estimate ${estimate}`);
      const [created, estimated, completed] = [Date.parse(started.created_at), Date.parse(estimate), Date.parse(ended.completed_at ?? '')];
      const error = Math.abs(estimated - completed) / (completed - created);
      errors.push(error);
      rows.push(`  ${started.video_id}  took ${((completed - created) / 1000).toFixed(2)} s, estimated ${((estimated - created) / 1000).toFixed(2)} s: error ${(100 * error).toFixed(1)} %`);
    }
    console.log(rows.join('\n'));
    console.log(
      `\nestimate error over ${MEASURED} tasks after ${WARM_UP} completions (SIM_DELAY_SECONDS=${DELAY_SECONDS}, no lanes): ` +
        `median ${(100 * percentile(errors, 50)).toFixed(1)} %, p90 ${(100 * percentile(errors, 90)).toFixed(1)} %, max ${(100 * Math.max(...errors)).toFixed(1)} % (goal: median <= 20 %)`,
    );
  } finally {
    await stack.stop();
  }
}

runBench(main);
