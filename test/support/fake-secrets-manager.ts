import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

/**
 * A Secrets Manager endpoint on 127.0.0.1 that answers DescribeSecret, for the deploy's secret
 * check (bin/deploy/check-secrets.ts). Built from AWS's API reference
 * (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_DescribeSecret.html and
 * CommonErrors): the JSON 1.1 protocol, `POST /` with `X-Amz-Target: secretsmanager.DescribeSecret`
 * and `{"SecretId": name or ARN}`; the answer carries ARN, Name, DeletedDate (epoch seconds, only
 * when scheduled for deletion) and VersionIdsToStages (absent for a secret created without a
 * value); an unknown secret is 400 `ResourceNotFoundException`. Signatures are not checked.
 */
export interface FakeSecret {
  name: string;
  /** Scheduled for deletion. */
  deleted?: boolean;
  /** Created without a value (no AWSCURRENT version). */
  empty?: boolean;
}

export interface FakeSecretsManager {
  endpoint: string;
  /** SecretIds asked for, in order. */
  asked: string[];
  close(): Promise<void>;
}

export async function startFakeSecretsManager(secrets: FakeSecret[], region = 'eu-west-1'): Promise<FakeSecretsManager> {
  const arnOf = (name: string) => `arn:aws:secretsmanager:${region}:123456789012:secret:${name}-AbCdEf`;
  const asked: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.1', 'x-amzn-RequestId': randomUUID() });
        response.end(JSON.stringify(body));
      };
      if (request.headers['x-amz-target'] !== 'secretsmanager.DescribeSecret') {
        return answer(400, { __type: 'InvalidRequestException', message: `unsupported target ${String(request.headers['x-amz-target'])}` });
      }
      const { SecretId: id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId: string };
      asked.push(id);
      const secret = secrets.find((candidate) => candidate.name === id || arnOf(candidate.name) === id);
      if (!secret) return answer(400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." });
      return answer(200, {
        ARN: arnOf(secret.name),
        Name: secret.name,
        CreatedDate: 1_795_000_000,
        ...(secret.deleted && { DeletedDate: 1_796_000_000 }),
        ...(!secret.empty && { VersionIdsToStages: { [randomUUID()]: ['AWSCURRENT'] } }),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
