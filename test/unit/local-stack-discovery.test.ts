import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { localStackEnvironment } from '#bin/invoke/local-env';
import { localTarget, notRunningHint, removeAddresses, runningLocalStack, writeAddresses } from '#bin/local-stack/discovery';
import { deadPid, RUNNING } from '#test-support/local-stack-addresses';

/**
 * admin, vidgen and `npm run invoke` aim at the local stack `npm start` runs, on whatever ports it
 * was given: it records them in its data folder. Variables you set still win.
 */
const freshDataDir = () => mkdtempSync(path.join(os.tmpdir(), 'vidgen-discovery-'));

describe('finding the local stack', () => {
  it('uses the defaults when no stack runs on the data folder', () => {
    const DATA_DIR = freshDataDir();
    expect(localTarget({ DATA_DIR })).toMatchObject({
      found: 'defaults',
      baseUrl: 'http://127.0.0.1:3000/api/v1',
      dynamodbEndpoint: 'http://127.0.0.1:8000',
      s3Endpoint: 'http://127.0.0.1:4569',
      publicMediaBaseUrl: 'http://127.0.0.1:3000/media',
    });
  });

  it('uses the addresses the running stack recorded, so admin and invoke follow npm start to other ports', () => {
    const DATA_DIR = freshDataDir();
    writeAddresses(DATA_DIR, { ...RUNNING, pid: process.pid });
    expect(localTarget({ DATA_DIR })).toEqual({ ...RUNNING, found: 'running stack', dataDir: DATA_DIR });
    expect(localStackEnvironment(localTarget({ DATA_DIR }))).toMatchObject({
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8700',
      S3_ENDPOINT: 'http://127.0.0.1:4700',
      PUBLIC_MEDIA_BASE_URL: 'http://127.0.0.1:3700/media',
    });
  });

  it('lets the variables you set win over the recorded addresses', () => {
    const DATA_DIR = freshDataDir();
    writeAddresses(DATA_DIR, { ...RUNNING, pid: process.pid });
    expect(localTarget({ DATA_DIR, DYNAMODB_PORT: '8123', S3_ENDPOINT: 'http://127.0.0.1:9999', PORT: '3123', TABLE_NAME: 't' })).toMatchObject({
      baseUrl: 'http://127.0.0.1:3123/api/v1',
      publicMediaBaseUrl: 'http://127.0.0.1:3123/media',
      dynamodbEndpoint: 'http://127.0.0.1:8123',
      s3Endpoint: 'http://127.0.0.1:9999',
      tableName: 't',
    });
    expect(localTarget({ DATA_DIR, DYNAMODB_ENDPOINT: 'http://127.0.0.1:1' }).dynamodbEndpoint).toBe('http://127.0.0.1:1');
  });

  it('ignores a file left by a stack that is gone, and a stopping stack removes only its own', () => {
    const DATA_DIR = freshDataDir();
    writeAddresses(DATA_DIR, { ...RUNNING, pid: deadPid() });
    expect(runningLocalStack(DATA_DIR)).toBeUndefined();
    expect(localTarget({ DATA_DIR }).found).toBe('defaults');

    writeAddresses(DATA_DIR, { ...RUNNING, pid: process.pid });
    removeAddresses(DATA_DIR, process.pid + 1);
    expect(runningLocalStack(DATA_DIR)).toBeDefined();
    removeAddresses(DATA_DIR, process.pid);
    expect(runningLocalStack(DATA_DIR)).toBeUndefined();
  });

  it('says where the address came from and which variables to set when nothing answers', () => {
    const DATA_DIR = freshDataDir();
    expect(notRunningHint(localTarget({ DATA_DIR }), 'DynamoDB Local', 'http://127.0.0.1:8000', 'DYNAMODB_PORT')).toBe(
      'Nothing answers at http://127.0.0.1:8000 (DynamoDB Local, the default). Is the local stack running (npm start)? ' +
        'If it runs on other ports, set DYNAMODB_PORT as you gave them to npm start, or DATA_DIR to its data folder.',
    );
    writeAddresses(DATA_DIR, { ...RUNNING, pid: process.pid });
    expect(notRunningHint(localTarget({ DATA_DIR }), 'DynamoDB Local', RUNNING.dynamodbEndpoint, 'DYNAMODB_PORT')).toContain(
      `(DynamoDB Local, as recorded in ${path.join(DATA_DIR, 'local-stack.json')})`,
    );
  });
});
