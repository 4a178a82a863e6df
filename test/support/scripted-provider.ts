import { createHmac } from 'node:crypto';
import {
  CallbackRejectedError,
  type CallbackRequest,
  type CallbackTarget,
  type GenerationJob,
  type GenerationProvider,
  type ProviderCallback,
  type ResultOutcome,
  type SubmitOptions,
  type SubmitOutcome,
} from '#domain/providers/provider';

/** The header a scripted callback must carry to count as signed. */
export const SCRIPTED_SIGNATURE = { name: 'x-scripted-signature', value: 'valid' } as const;

/**
 * A provider whose answers the test decides, for driving the task lifecycle through every
 * outcome, on DynamoDB Local and s3rver or on the in-memory stores.
 */
export class ScriptedProvider implements GenerationProvider {
  /** `name`: a second one for routing tests ('scripted' by default). */
  constructor(readonly name = 'scripted') {}

  submits: GenerationJob[] = [];
  /** The options each submit was given (callback URLs), in order. */
  submitOptions: (SubmitOptions | undefined)[] = [];
  fetches = 0;
  canceled: string[] = [];
  private submitAnswer: () => Promise<SubmitOutcome> = async () => ({ type: 'accepted', jobId: `job_${this.submits.length}` });
  private resultAnswer: () => Promise<ResultOutcome> = async () => ({ type: 'processing' });

  onSubmit(answer: () => Promise<SubmitOutcome>): this {
    this.submitAnswer = answer;
    return this;
  }

  onFetch(answer: () => Promise<ResultOutcome>): this {
    this.resultAnswer = answer;
    return this;
  }

  async submit(job: GenerationJob, options?: SubmitOptions): Promise<SubmitOutcome> {
    this.submits.push(job);
    this.submitOptions.push(options);
    return this.submitAnswer();
  }

  async fetchResult(): Promise<ResultOutcome> {
    this.fetches += 1;
    return this.resultAnswer();
  }

  async cancel(jobId: string): Promise<void> {
    this.canceled.push(jobId);
  }

  /** Bound to the target by a fixed test key, as the real adapters bind it with their secret. */
  async callbackToken(target: CallbackTarget): Promise<string | undefined> {
    return createHmac('sha256', 'scripted-callback-key').update(JSON.stringify(target)).digest('base64url');
  }

  /** A callback is `{ jobId, outcome, messageId? }` as JSON, signed by SCRIPTED_SIGNATURE. */
  async readCallback(request: CallbackRequest): Promise<ProviderCallback> {
    if (request.headers[SCRIPTED_SIGNATURE.name] !== SCRIPTED_SIGNATURE.value) {
      throw new CallbackRejectedError('signature', 'The scripted signature is missing or wrong.');
    }
    try {
      return JSON.parse(request.body) as ProviderCallback;
    } catch {
      throw new CallbackRejectedError('malformed', 'The scripted callback is not JSON.');
    }
  }
}
