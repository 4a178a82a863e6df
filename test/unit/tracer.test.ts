import { S3Client } from '@aws-sdk/client-s3';

/**
 * functions/observability/tracer.ts is loaded only by functions that can carry the X-Ray SDK
 * (docs/operations.md, "Logs, metrics and traces"). Once loaded on Lambda, every SDK client
 * created through `traced` records its calls; off Lambda, and before it is loaded, clients
 * are left as they are.
 */
const xrayMiddleware = (client: S3Client) => client.middlewareStack.identify().filter((name) => /xray/i.test(name));

describe('SDK client tracing', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('instruments clients created through traced() once the tracer is loaded on Lambda', () => {
    process.env.AWS_EXECUTION_ENV = 'AWS_Lambda_nodejs24.x';
    process.env._X_AMZN_TRACE_ID = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=1';
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module per case (jest.isolateModules)
      const { traced } = require('#observability/client-tracing');
      expect(xrayMiddleware(traced(new S3Client({ region: 'eu-west-1' })))).toEqual([]);
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module per case (jest.isolateModules)
      require('#observability/tracer');
      expect(xrayMiddleware(traced(new S3Client({ region: 'eu-west-1' })))).toHaveLength(1);
    });
  });

  it('leaves clients alone off Lambda, even with the tracer loaded', () => {
    delete process.env.AWS_EXECUTION_ENV;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module per case (jest.isolateModules)
      const { traced } = require('#observability/client-tracing');
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh module per case (jest.isolateModules)
      require('#observability/tracer');
      expect(xrayMiddleware(traced(new S3Client({ region: 'eu-west-1' })))).toEqual([]);
    });
  });
});
