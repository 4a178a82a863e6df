import { spawnSync } from 'node:child_process';
import type { LocalStackAddresses } from '#bin/local-stack/discovery';

/** What `npm start PORT=3700 DYNAMODB_PORT=8700 S3_PORT=4700` records in its data folder. */
export const RUNNING: Omit<LocalStackAddresses, 'pid'> = {
  baseUrl: 'http://127.0.0.1:3700/api/v1',
  dynamodbEndpoint: 'http://127.0.0.1:8700',
  s3Endpoint: 'http://127.0.0.1:4700',
  publicMediaBaseUrl: 'http://127.0.0.1:3700/media',
  tableName: 'vidgen-local',
  mediaBucket: 'vidgen-media-local',
  region: 'local',
};

/** The pid of a process that has ended. */
export function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}
