/**
 * A fake customer store on a fixed port, for trying deliveries by hand against `npm start`
 * (design-35 §11, bin/demo/storage.sh): `npx tsx test/support/fake-store-cli.ts --port 9911 --answers 500,500`.
 * Each PUT is logged; Ctrl-C (or SIGTERM) stops it.
 */
import { parseArgs } from 'node:util';
import { startFakeStore } from './fake-store';

// In a function, not top-level await: the repository compiles .ts files as CommonJS.
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '9911' }, answers: { type: 'string', default: '' } } });
  const store = await startFakeStore({
    port: Number(values.port),
    answers: values.answers === '' ? [] : values.answers.split(','),
    log: (line) => console.log(line),
  });
  console.log(`fake store at ${store.origin}/<any key> (answers: ${values.answers ? `${values.answers}, then 200` : '200'})`);
  const stop = () => void store.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`fake store: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
