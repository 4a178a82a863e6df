import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

/**
 * An Amazon SES API v2 endpoint on 127.0.0.1 that answers SendEmail, built from AWS's API
 * reference (https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_SendEmail.html, mirrored
 * at https://docs.amazonaws.cn/goto/WebAPI/sesv2-2019-09-27/SendEmail): the REST-JSON protocol,
 * `POST /v2/email/outbound-emails` with a JSON body of FromEmailAddress, Destination
 * {ToAddresses}, Content {Simple {Subject {Data, Charset}, Body {Text|Html {Data, Charset}}}} and
 * an optional ConfigurationSetName; success is 200 `{"MessageId": "..."}`. Its errors are 400s
 * named in the `x-amzn-ErrorType` header with `{"message": ...}` (MessageRejected: "the message
 * can't be sent because it contains invalid content"; MailFromDomainNotVerifiedException,
 * SendingPausedException, AccountSuspendedException), and TooManyRequestsException is 429.
 * Signatures are not checked.
 */
export interface SentEmail {
  FromEmailAddress: string;
  Destination: { ToAddresses: string[] };
  Content: { Simple: { Subject: { Data: string; Charset?: string }; Body: { Text?: { Data: string; Charset?: string }; Html?: { Data: string } } } };
  ConfigurationSetName?: string;
}

export interface FakeSes {
  endpoint: string;
  /** Accepted messages, in order. */
  sent: SentEmail[];
  /** The next SendEmail calls answer this error, as SES does (its type, its status). */
  failNext(error: { type: string; status: number; message: string }, times?: number): void;
  close(): Promise<void>;
}

export async function startFakeSes(): Promise<FakeSes> {
  const sent: SentEmail[] = [];
  const failures: Array<{ type: string; status: number; message: string }> = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body: unknown, errorType?: string) => {
        response.writeHead(status, { 'Content-Type': 'application/json', 'x-amzn-RequestId': randomUUID(), ...(errorType && { 'x-amzn-ErrorType': errorType }) });
        response.end(JSON.stringify(body));
      };
      if (request.method !== 'POST' || request.url !== '/v2/email/outbound-emails') return answer(404, { message: `no route ${request.method} ${request.url}` }, 'NotFoundException');
      const failure = failures.shift();
      if (failure) return answer(failure.status, { message: failure.message }, failure.type);
      const email = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SentEmail;
      if (!email.FromEmailAddress || !email.Destination?.ToAddresses?.length || !email.Content?.Simple) return answer(400, { message: 'Missing required field' }, 'BadRequestException');
      sent.push(email);
      return answer(200, { MessageId: `0100018c${randomUUID().replace(/-/g, '')}-000000` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    failNext: (error, times = 1) => {
      for (let i = 0; i < times; i += 1) failures.push(error);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
