import { S3Client } from '@aws-sdk/client-s3';
import { traced } from '#observability/client-tracing';
import { boundedClientConfig, S3_BOUNDS } from '../aws-client-options';

export interface S3Options {
  region: string;
  /** s3rver's URL on the local stack; unset on AWS. */
  endpoint?: string;
}

export function createS3Client({ region, endpoint }: S3Options): S3Client {
  const client = new S3Client({
    region,
    ...boundedClientConfig(S3_BOUNDS),
    // Only compute checksums when S3 requires them: newer SDKs otherwise frame streamed uploads
    // with trailing checksums, which s3rver stores verbatim inside the object.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(endpoint && {
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    }),
  });
  return traced(client);
}
