import type { Readable } from 'node:stream';
import type { Context } from 'aws-lambda';

/** What a streamed API Gateway answer starts with, and its body as it arrives. */
export interface StreamedAnswer {
  statusCode: number;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  cookies?: string[];
  body: Readable;
}

/** Defines the Lambda runtime's `awslambda` global (see lambda-streaming.cjs). */
export function installRuntimeGlobals(): void;
/** Whether `awslambda.streamifyResponse` marked the handler. */
export function isStreamingHandler(handler: unknown): boolean;
/** Calls a streaming handler as API Gateway's STREAM integration does. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function invokeStreaming(handler: (...args: any[]) => unknown, event: unknown, context: Context): Promise<StreamedAnswer>;
export function readAll(stream: Readable): Promise<string>;
