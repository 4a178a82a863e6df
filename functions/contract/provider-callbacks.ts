import * as z from 'zod';
import { successEnvelopeSchema } from './envelope';

/** What the provider callback route answers a verified callback (the provider only reads the status). */
export const providerCallbackAnswer = z
  .object({
    received: z.literal(true),
    result: z.enum(['applied', 'adopted', 'orphaned', 'duplicate']).meta({
      description:
        '`applied`: the task moved on (or already had); `adopted`: the task had no job yet and this one is now its job; `orphaned`: the task ended without this job, which was asked to stop; `duplicate`: a message already received (same `webhook-id`), which changed nothing.',
    }),
  })
  .meta({ id: 'ProviderCallbackAnswer' });

export const providerCallbackResponse = successEnvelopeSchema('ProviderCallbackResponse', providerCallbackAnswer);

export type ProviderCallbackAnswer = z.infer<typeof providerCallbackAnswer>;
