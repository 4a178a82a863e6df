import type { GenerationJob, GenerationProvider, ResultOutcome, SubmitOutcome } from '../../functions/domain/provider';

/**
 * A provider whose answers the test decides, for driving the task lifecycle through every
 * outcome, on DynamoDB Local and s3rver or on the in-memory stores.
 */
export class ScriptedProvider implements GenerationProvider {
  readonly name = 'scripted';
  submits: GenerationJob[] = [];
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

  async submit(job: GenerationJob): Promise<SubmitOutcome> {
    this.submits.push(job);
    return this.submitAnswer();
  }

  async fetchResult(): Promise<ResultOutcome> {
    this.fetches += 1;
    return this.resultAnswer();
  }

  async cancel(jobId: string): Promise<void> {
    this.canceled.push(jobId);
  }
}
