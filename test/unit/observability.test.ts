import type { APIGatewayProxyEvent } from 'aws-lambda';
import { lambdaContext } from '#bin/lambda-context.cjs';
import { UpstreamError } from '#domain/shared/errors';
import { publicHandler } from '#http/public-handler';
import { spec as docsSpec } from '#handlers/get-docs.spec';
import { formatPretty } from '#observability/log-format';
import { metrics } from '#observability/metrics';
import { powertoolsTelemetry } from '#observability/telemetry';

/** Everything written to stdout and stderr while `fn` runs, one entry per line. */
async function output(fn: () => Promise<unknown>): Promise<{ stdout: string[]; stderr: string[] }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const capture = (into: string[]) => (chunk: unknown) => {
    into.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  };
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture(stdout));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture(stderr));
  try {
    await fn();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return { stdout, stderr };
}

const context = lambdaContext('get-docs', { requestId: 'aws-req-1' });
const event = (requestId: string) =>
  ({ requestContext: { requestId }, headers: {}, pathParameters: null }) as unknown as APIGatewayProxyEvent;

beforeEach(() => {
  delete process.env.LOG_FORMAT;
});

describe('HTTP errors in the log', () => {
  it('logs a 502 upstream refusal as a warning without a stack, with the request id', async () => {
    const handler = publicHandler(docsSpec, async () => {
      throw new UpstreamError('The generation provider did not accept the request.');
    });
    let status = 0;
    const { stdout, stderr } = await output(async () => {
      status = (await handler(event('req-502'), context)).statusCode;
    });
    expect(status).toBe(502);
    expect(stdout).toEqual([]);
    expect(stderr).toHaveLength(1);
    const line = JSON.parse(stderr[0]!);
    expect(line).toMatchObject({
      level: 'WARN',
      message: 'request failed upstream',
      status: 502,
      request_id: 'req-502',
      function_name: 'get-docs',
      function_request_id: 'aws-req-1',
      service: 'vidgen-local',
    });
    expect(typeof line.cold_start).toBe('boolean');
    expect(stderr[0]).not.toContain('stack');
  });

  it('logs an unexpected error at error level with its stack', async () => {
    const handler = publicHandler(docsSpec, async () => {
      throw new TypeError('boom: undefined is not a function');
    });
    let status = 0;
    const { stderr } = await output(async () => {
      status = (await handler(event('req-500'), context)).statusCode;
    });
    expect(status).toBe(500);
    expect(stderr).toHaveLength(1);
    const line = JSON.parse(stderr[0]!);
    expect(line).toMatchObject({ level: 'ERROR', message: 'request failed', status: 500, request_id: 'req-500' });
    expect(line.error).toMatchObject({ name: 'TypeError', message: 'boom: undefined is not a function' });
    expect(line.error.stack).toContain('observability.test.ts');
  });

  it('keeps concurrent requests apart: each line names its own request', async () => {
    const handler = publicHandler(docsSpec, async (e) => {
      await new Promise((resolve) => setTimeout(resolve, e.requestContext.requestId === 'slow' ? 30 : 1));
      throw new UpstreamError(`refused ${e.requestContext.requestId}`);
    });
    const invocation = (functionName: string) => lambdaContext(functionName, { requestId: `aws-${functionName}` });
    const { stderr } = await output(() =>
      Promise.all([handler(event('slow'), invocation('slow-fn')), handler(event('fast'), invocation('fast-fn'))]),
    );
    const lines = stderr.map((text) => JSON.parse(text));
    expect(lines.map((line) => [line.request_id, line.reason, line.function_name, line.function_request_id])).toEqual([
      ['fast', 'refused fast', 'fast-fn', 'aws-fast-fn'],
      ['slow', 'refused slow', 'slow-fn', 'aws-slow-fn'],
    ]);
  });
});

describe('business metrics', () => {
  it('go out as CloudWatch EMF in namespace VidGen: service-wide, and per model on a line of their own', async () => {
    const { stdout } = await output(async () => {
      powertoolsTelemetry.count('TaskStarted', { model: 'vid-2-0' });
      powertoolsTelemetry.providerLatency(123.4, 'submit');
      metrics.publishStoredMetrics();
    });
    const emf = stdout.map((text) => JSON.parse(text));
    const perModel = emf.find((line) => line.model === 'vid-2-0');
    const perOperation = emf.find((line) => line.operation === 'submit');
    const serviceWide = emf.find((line) => line.model === undefined && line.operation === undefined);
    expect(emf).toHaveLength(3);
    expect(serviceWide).toMatchObject({ service: 'vidgen-local', TaskStarted: 1, ProviderLatency: 123 });
    expect(serviceWide._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'VidGen',
        Dimensions: [['service']],
        Metrics: expect.arrayContaining([
          { Name: 'TaskStarted', Unit: 'Count' },
          { Name: 'ProviderLatency', Unit: 'Milliseconds' },
        ]),
      },
    ]);
    expect(perModel).toMatchObject({ TaskStarted: 1, service: 'vidgen-local' });
    expect(perModel._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service', 'model']]);
    expect(perOperation._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service', 'operation']]);
  });

  it('are not printed on the local stack (LOG_FORMAT=pretty), where the log lines say the same', async () => {
    process.env.LOG_FORMAT = 'pretty';
    const { stdout, stderr } = await output(async () => {
      powertoolsTelemetry.count('TaskCompleted', { model: 'image-2' });
      metrics.publishStoredMetrics();
    });
    expect([...stdout, ...stderr]).toEqual([]);
  });
});

describe('the local log format', () => {
  it('prints an entry as one readable line, request keys last', () => {
    const line = formatPretty({
      level: 'WARN',
      message: 'provider failure',
      timestamp: '2026-11-23T14:03:07.412Z',
      service: 'vidgen-local',
      cold_start: false,
      function_name: 'get-video',
      function_request_id: 'abc',
      request_id: 'req-1',
      account_id: 'acc_1',
      task_id: 'vid_1',
      detail: 'simulated generation failure (sim:fail)',
    });
    expect(line).toBe(
      '14:03:07.412 WARN  get-video       provider failure task_id=vid_1 detail="simulated generation failure (sim:fail)" request_id=req-1 account_id=acc_1',
    );
  });

  it('puts an error stack on the lines after it', () => {
    const error = { name: 'Error', message: 'boom', location: 'x.ts:1', stack: 'Error: boom\n    at one (x.ts:1:1)\n    at two (y.ts:2:2)' };
    const text = formatPretty({ level: 'ERROR', message: 'request failed', timestamp: '2026-11-23T14:03:07.412Z', error });
    expect(text.split('\n')).toEqual([
      '14:03:07.412 ERROR request failed error="Error: boom"',
      '    at one (x.ts:1:1)',
      '    at two (y.ts:2:2)',
    ]);
  });
});
