/**
 * A fake customer store on a fixed port, for trying deliveries by hand against `npm start`
 * (design-35 §11): `npx tsx test/support/fake-store-cli.ts --port 9911 --answers 500,500`.
 * Each PUT is logged; Ctrl-C stops it.
 */
import { parseArgs } from 'node:util';
import { startFakeStore } from './fake-store';

const { values } = parseArgs({ options: { port: { type: 'string', default: '9911' }, answers: { type: 'string', default: '' } } });
const store = await startFakeStore({
  port: Number(values.port),
  answers: values.answers === '' ? [] : values.answers.split(','),
  log: (line) => console.log(line),
});
console.log(`fake store at ${store.origin}/<any key> (answers: ${values.answers || '200'})`);
process.on('SIGINT', () => void store.close().then(() => process.exit(0)));
