import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Lockout } from './lockout';
import { CognitoError, userPoolOperations, type CodeSink } from './operations';
import { PoolStore } from './pool-store';
import { signatureProblem, type AccessKey } from './sigv4';
import { tokenSigner } from './tokens';

/**
 * The local identity server: Amazon Cognito's user pool API (the JSON protocol: POST / with
 * `X-Amz-Target: AWSCognitoIdentityProviderService.<Operation>`), the pool's JWKS at
 * `<issuer>/.well-known/jwks.json` and its OpenID configuration. Answers cross-origin requests
 * from any origin, as Cognito does, so the console calls it from the browser exactly as it calls
 * Cognito. Its data (the pool, its signing key, its users) lives in `dataDir`.
 *
 * As on AWS, the administrative operations (Admin*) need IAM credentials: a request signed (SigV4)
 * with the access key kept in the pool's file, which only its owner can read (the admin CLI and
 * the tests find it through bin/local-stack/discovery.ts). The other operations need none.
 */
export interface IdentityServer {
  /** The Cognito endpoint (the SDK's `endpoint`), without a trailing slash. */
  endpoint: string;
  /** The `iss` of its tokens: `<endpoint>/<userPoolId>`, as on Cognito. */
  issuer: string;
  userPoolId: string;
  clientId: string;
  /** The credentials the Admin* operations must be signed with. */
  adminCredentials: AccessKey;
  stop(): Promise<void>;
}

export interface IdentityServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  dataDir: string;
  region: string;
  /** Where the codes the deployed pool would email go (the stack prints them). */
  sendCode: CodeSink;
  /** Epoch milliseconds (tests move it to the end of a lockout). */
  clock?: () => number;
}

const TARGET_PREFIX = 'AWSCognitoIdentityProviderService.';
/** The signing name of Cognito user pools' API (credential scope `<date>/<region>/cognito-idp/aws4_request`). */
const SIGNING_SERVICE = 'cognito-idp';
const JSON_TYPE = 'application/x-amz-json-1.1';

export async function startIdentityServer(options: IdentityServerOptions): Promise<IdentityServer> {
  const pool = PoolStore.open(options.dataDir, options.region);
  const server = http.createServer();
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`Port ${options.port} is in use; set IDENTITY_PORT to a free port.`) : error),
    );
    server.listen(options.port, options.host, () => resolve((server.address() as AddressInfo).port));
  });
  const endpoint = `http://${options.host}:${port}`;
  const issuer = `${endpoint}/${pool.userPoolId}`;
  const tokens = tokenSigner(issuer, pool.signingKey);
  const clock = options.clock ?? Date.now;
  const operations = userPoolOperations(pool, tokens, options.sendCode, new Lockout(clock));
  const jwksPath = `/${pool.userPoolId}/.well-known/jwks.json`;
  const discoveryPath = `/${pool.userPoolId}/.well-known/openid-configuration`;

  server.on('request', (req, res) => {
    const send = (status: number, body: object, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { ...corsHeaders(req), 'Content-Length': String(Buffer.byteLength(text)), ...headers });
      res.end(text);
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'OPTIONS') {
      res.writeHead(204, corsHeaders(req));
      res.end();
      return;
    }
    if (req.method === 'GET' && path === jwksPath) return send(200, tokens.jwks(), { 'Content-Type': 'application/json' });
    if (req.method === 'GET' && path === discoveryPath) {
      return send(200, { issuer, jwks_uri: `${issuer}/.well-known/jwks.json`, id_token_signing_alg_values_supported: ['RS256'] }, { 'Content-Type': 'application/json' });
    }
    if (req.method !== 'POST' || path !== '/') return send(404, { message: 'Not found' }, { 'Content-Type': 'application/json' });

    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const name = target.startsWith(TARGET_PREFIX) ? target.slice(TARGET_PREFIX.length) : '';
      const operation = Object.hasOwn(operations, name) ? operations[name] : undefined;
      const fail = (error: CognitoError) =>
        send(400, { __type: error.type, message: error.message }, { 'Content-Type': JSON_TYPE, 'x-amzn-ErrorType': error.type });
      if (!operation) return fail(new CognitoError('UnknownOperationException', `Unknown or unsupported operation ${target}.`));
      if (name.startsWith('Admin')) {
        const problem = signatureProblem(
          { method: req.method ?? 'POST', url: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) },
          { key: pool.adminCredentials, region: options.region, service: SIGNING_SERVICE, now: clock() },
        );
        if (problem) return fail(new CognitoError(problem.type, problem.message));
      }
      let params: unknown;
      try {
        params = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return fail(new CognitoError('SerializationException', 'The request body is not JSON.'));
      }
      if (typeof params !== 'object' || params === null) return fail(new CognitoError('SerializationException', 'The request body is not a JSON object.'));
      operation(params as Record<string, unknown>).then(
        (result) => send(200, result, { 'Content-Type': JSON_TYPE }),
        (error: unknown) => {
          if (error instanceof CognitoError) return fail(error);
          console.error(JSON.stringify({ level: 'error', message: 'identity server failure', error: String(error) }));
          send(500, { __type: 'InternalErrorException', message: 'Internal error' }, { 'Content-Type': JSON_TYPE });
        },
      );
    });
  });

  return {
    endpoint,
    issuer,
    userPoolId: pool.userPoolId,
    clientId: pool.clientId,
    adminCredentials: pool.adminCredentials,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Any origin, the headers the browser asks for (the SDK's and fetch's own): what Cognito allows. */
function corsHeaders(req: http.IncomingMessage): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Allow-Headers': String(req.headers['access-control-request-headers'] ?? 'content-type, x-amz-target, x-amz-user-agent'),
    'Access-Control-Expose-Headers': 'x-amzn-RequestId, x-amzn-ErrorType, x-amzn-ErrorMessage, Date',
    'Access-Control-Max-Age': '86400',
  };
}
