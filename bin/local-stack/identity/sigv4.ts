import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The check Cognito makes of its administrative operations (AdminCreateUser, AdminSetUserPassword,
 * AdminGetUser...), which only IAM credentials may call: the request must carry an AWS Signature
 * Version 4 made with the one access key this stack holds. The signature is computed again here
 * the way the SDKs compute it (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html)
 * and compared. Answers use the error types AWS's JSON services use for unsigned, unknown-key and
 * mis-signed requests.
 */
export interface AccessKey {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface SignedRequest {
  method: string;
  /** The path and query as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface SignatureProblem {
  type: 'MissingAuthenticationTokenException' | 'UnrecognizedClientException' | 'InvalidSignatureException' | 'IncompleteSignatureException';
  message: string;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
/** How far a request's X-Amz-Date may be from now, as on AWS. */
const MAX_SKEW_MS = 15 * 60_000;
/** Headers a signature must cover: who it is for, when, and which operation. */
const REQUIRED_SIGNED = ['host', 'x-amz-date', 'x-amz-target'];

/** Undefined when `request` is signed with `key` for `service` in `region`; otherwise why not. */
export function signatureProblem(
  request: SignedRequest,
  expected: { key: AccessKey; region: string; service: string; now: number },
): SignatureProblem | undefined {
  const authorization = String(request.headers.authorization ?? '');
  if (!authorization) return { type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const parsed = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(authorization.trim());
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  if (!parsed || !/^\d{8}T\d{6}Z$/.test(amzDate)) {
    return { type: 'IncompleteSignatureException', message: 'The Authorization header must be an AWS Signature Version 4 with Credential, SignedHeaders and Signature, and X-Amz-Date must be set.' };
  }
  const [, credential = '', signedHeaderList = '', signature = ''] = parsed;
  const [accessKeyId, date, region, service, terminator] = credential.split('/');
  if (accessKeyId !== expected.key.accessKeyId) return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  const signedHeaders = signedHeaderList.split(';');
  if (terminator !== 'aws4_request' || date !== amzDate.slice(0, 8) || region !== expected.region || service !== expected.service) {
    return { type: 'InvalidSignatureException', message: `Credential should be scoped to ${amzDate.slice(0, 8)}/${expected.region}/${expected.service}/aws4_request.` };
  }
  const missing = REQUIRED_SIGNED.filter((name) => !signedHeaders.includes(name));
  if (missing.length > 0) return { type: 'InvalidSignatureException', message: `The signature must cover the headers ${missing.join(', ')}.` };
  if (Math.abs(expected.now - Date.parse(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13)}`)) > MAX_SKEW_MS) {
    return { type: 'InvalidSignatureException', message: 'Signature expired: the request time is more than 15 minutes from the server time.' };
  }

  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, scope, sha256Hex(canonicalRequest(request, signedHeaders))].join('\n');
  const signingKey = [date!, region!, service!, 'aws4_request'].reduce<Buffer>((key, part) => hmac(key, part), Buffer.from(`AWS4${expected.key.secretAccessKey}`));
  const actual = hmac(signingKey, stringToSign);
  if (!timingSafeEqual(actual, Buffer.from(signature, 'hex'))) {
    return {
      type: 'InvalidSignatureException',
      message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    };
  }
  return undefined;
}

function canonicalRequest(request: SignedRequest, signedHeaders: string[]): string {
  const [path = '/', query = ''] = request.url.split('?');
  const headerLines = signedHeaders.map((name) => {
    const value = request.headers[name];
    const text = Array.isArray(value) ? value.join(',') : String(value ?? '');
    return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
  });
  const payloadHash = typeof request.headers['x-amz-content-sha256'] === 'string' ? request.headers['x-amz-content-sha256'] : sha256Hex(request.body);
  return [request.method, path, canonicalQuery(query), headerLines.join(''), signedHeaders.join(';'), payloadHash].join('\n');
}

/** Names and values RFC 3986-encoded, sorted by name then value. */
function canonicalQuery(query: string): string {
  const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return [...new URLSearchParams(query)]
    .map(([name, value]) => [encode(name), encode(value)] as const)
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer, data: string) => createHmac('sha256', key).update(data).digest();
