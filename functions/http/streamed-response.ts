import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { logger } from '#observability/logger';

/** A proxy answer whose body may still be arriving: a route with a STREAM integration. */
export type StreamedResult = Omit<APIGatewayProxyResult, 'body'> & { body: string | ReadableStream<Uint8Array> };

/** What the Lambda runtime calls for a streaming function (`awslambda.streamifyResponse`). */
export type StreamingLambdaHandler = (event: APIGatewayProxyEvent, responseStream: NodeJS.WritableStream, context: Context) => Promise<void>;

/**
 * Turns a handler that returns a proxy answer into a streaming Lambda handler for API Gateway's
 * STREAM transfer mode: the status and headers go first (HttpResponseStream's metadata), then the
 * body as the handler's stream yields it, so a client reads each part as it is written instead
 * of the whole answer at the end. `awslambda` is the runtime's global (locally,
 * bin/lambda-streaming.cjs defines it).
 */
export function streamedResponse(
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<StreamedResult>,
  hooks: { afterBody?: () => void } = {},
): StreamingLambdaHandler {
  return awslambda.streamifyResponse(async (event: APIGatewayProxyEvent, responseStream, context: Context) => {
    const { body, ...metadata } = await handler(event, context);
    const http = awslambda.HttpResponseStream.from(responseStream, metadata);
    // The runtime sends the metadata with the first write: an empty body (a 202) needs one too,
    // and a stream's status and headers then leave at once.
    http.write('');
    try {
      await pipeline(typeof body === 'string' ? Readable.from([body]) : Readable.fromWeb(body as WebReadableStream<Uint8Array>), http);
    } catch (error) {
      // Past the middleware: the status has gone out, so the failure can only be logged here.
      if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') logger.warn('the client left before the answer ended');
      else logger.error('streamed answer failed', { error: error as Error });
      throw error;
    } finally {
      hooks.afterBody?.();
    }
  }) as StreamingLambdaHandler;
}
