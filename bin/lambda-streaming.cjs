'use strict';
/**
 * Lambda response streaming as the Node.js runtime and API Gateway's STREAM integrations speak
 * it, for the local callers (the local stack's gateway, `npm run invoke`'s bundle runner, tests):
 * - `installRuntimeGlobals()` defines the runtime's `awslambda` global: `streamifyResponse` marks
 *   a handler as streaming (the runtime then calls it with a response stream), and
 *   `HttpResponseStream.from` has the HTTP metadata (status, headers) written as JSON and 8 NUL
 *   bytes before the body, with the first write: the framing API Gateway reads.
 * - `invokeStreaming(handler, event, context)` calls such a handler and reads that framing back as
 *   API Gateway does: it resolves with the metadata once the delimiter arrives, the body following
 *   as a stream while the handler still writes it.
 * Plain CommonJS, as lambda-context.cjs: the bundle runner is bare `node`.
 */
const { PassThrough } = require('node:stream');

/** The runtime's own marks (aws-lambda-nodejs-runtime-interface-client). */
const HANDLER_STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const STREAM_RESPONSE = 'response';
const HTTP_INTEGRATION_RESPONSE = 'application/vnd.awslambda.http-integration-response';
/** Between the metadata JSON (which never holds a NUL byte) and the body. */
const DELIMITER = Buffer.alloc(8);

const runtimeGlobal = {
  streamifyResponse(handler) {
    handler[HANDLER_STREAMING] = STREAM_RESPONSE;
    return handler;
  },
  HttpResponseStream: {
    // As the runtime's: the metadata goes out with the first write, so an answer that writes
    // nothing sends none (API Gateway then has no status or headers).
    from(stream, metadata) {
      stream.setContentType(HTTP_INTEGRATION_RESPONSE);
      const prelude = JSON.stringify(metadata);
      stream._onBeforeFirstWrite = (write) => {
        write(prelude);
        write(DELIMITER);
      };
      return stream;
    },
  },
};

/**
 * Defines `awslambda`'s streaming members as the Lambda runtime does, before a streaming
 * handler's module loads. Others may have made the object already (the AWS SDK's invoke store
 * keeps its own member there): ours join theirs.
 */
function installRuntimeGlobals() {
  globalThis.awslambda = globalThis.awslambda || {};
  for (const [name, member] of Object.entries(runtimeGlobal)) {
    if (!globalThis.awslambda[name]) globalThis.awslambda[name] = member;
  }
}

function isStreamingHandler(handler) {
  return typeof handler === 'function' && handler[HANDLER_STREAMING] === STREAM_RESPONSE;
}

/**
 * Calls a streaming handler as API Gateway's STREAM integration does. Resolves with
 * `{ statusCode, headers, multiValueHeaders, cookies, body }` (`body`: a Readable of the rest)
 * once the metadata arrives; rejects if the handler fails or ends before writing it. A failure
 * after it destroys `body`, as a cut connection would.
 */
function invokeStreaming(handler, event, context) {
  const responseStream = new PassThrough();
  let contentType;
  responseStream.setContentType = (type) => {
    contentType = type;
  };
  // The runtime's response stream calls `_onBeforeFirstWrite` (set by HttpResponseStream.from) on the first write.
  const write = responseStream.write.bind(responseStream);
  let written = false;
  responseStream.write = (chunk, encoding, callback) => {
    if (!written && typeof responseStream._onBeforeFirstWrite === 'function') responseStream._onBeforeFirstWrite((part) => write(part));
    written = true;
    return write(chunk, encoding, callback);
  };
  const body = new PassThrough();
  // The reader went away before the end (the client left): the handler's stream breaks, as on Lambda.
  let failed = false;
  body.on('close', () => {
    if (!failed && !responseStream.destroyed && !responseStream.writableFinished) {
      responseStream.destroy(Object.assign(new Error('The client closed the connection.'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    }
  });
  // The handler learns of a broken stream from its own writes (its pipeline rejects).
  responseStream.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    let started = false;
    const fail = (error) => {
      failed = true;
      if (!started) reject(error);
      else body.destroy(error);
    };
    responseStream.on('data', (chunk) => {
      if (started) {
        body.write(chunk);
        return;
      }
      if (contentType !== HTTP_INTEGRATION_RESPONSE) {
        fail(new Error('A streamed API Gateway answer starts with its HTTP metadata (awslambda.HttpResponseStream.from).'));
        responseStream.destroy();
        return;
      }
      head = Buffer.concat([head, chunk]);
      const at = head.indexOf(DELIMITER);
      if (at < 0) return;
      let metadata;
      try {
        metadata = JSON.parse(head.subarray(0, at).toString('utf8'));
      } catch (error) {
        fail(new Error(`The streamed answer's HTTP metadata is not JSON: ${error.message}`));
        return;
      }
      started = true;
      resolve({ ...metadata, body });
      if (head.length > at + DELIMITER.length) body.write(head.subarray(at + DELIMITER.length));
    });
    responseStream.on('end', () => {
      if (started) body.end();
      else reject(new Error('The streaming handler ended without its HTTP metadata (awslambda.HttpResponseStream.from).'));
    });
    Promise.resolve()
      .then(() => handler(event, responseStream, context))
      .then(
        () => {
          if (!responseStream.writableEnded) responseStream.end();
        },
        fail,
      );
  });
}

/** Reads a whole stream (the bundle runner reports a streamed answer as one body). */
async function readAll(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

module.exports = { installRuntimeGlobals, isStreamingHandler, invokeStreaming, readAll };
