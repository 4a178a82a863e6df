import { mkdirSync } from 'node:fs';
import S3rver from 's3rver';

export interface S3Local {
  endpoint: string;
  stop(): Promise<void>;
}

/** Starts s3rver (S3's API in Node), with `buckets` created, storing objects under `directory`. */
export async function startS3Local(options: {
  host: string;
  port: number;
  directory: string;
  buckets: string[];
}): Promise<S3Local> {
  mkdirSync(options.directory, { recursive: true });
  const server = new S3rver({
    address: options.host,
    port: options.port,
    directory: options.directory,
    silent: true,
    configureBuckets: options.buckets.map((name) => ({ name, configs: [] })),
  });
  const { port } = await server.run();
  return {
    endpoint: `http://${options.host}:${port}`,
    stop: () => server.close(),
  };
}
