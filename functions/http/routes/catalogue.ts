import { ok } from '#contract/examples';
import { MODEL_LIST, modelListResponse } from '#contract/models';
import { quoteRequest, quoteResponse } from '#contract/quote';
import type { RouteDoc } from '../route';
import { AUTH, json } from './operation-doc';

const QUOTE_EXAMPLE = { kind: 'video', prompt: 'a red fox running through snow', model: 'vid-2-0', duration: 5 };

/** The models and their prices (GET /models), and the price of a start before making it (POST /quote). */
export const CATALOGUE_DOCS: RouteDoc[] = [
  {
    handler: 'list-models',
    doc: {
      operationId: 'listModels',
      summary: 'List the models',
      description:
        'Every model with its price (`credits_per_unit` per second of video or per image, the task\'s total rounded up once), whether it needs a subscription, the defaults a left-out parameter takes, the values each parameter accepts and its capabilities. The same catalogue prices and validates every start.',
      tag: 'Models',
      success: { description: 'The models, videos first.', ...json(modelListResponse, ok({ models: MODEL_LIST.models.slice(0, 1) })) },
      errors: [401, 429, 500],
      curl: `curl -s "{BASE}/models" ${AUTH}`,
    },
  },
  {
    handler: 'quote',
    doc: {
      operationId: 'quote',
      summary: 'Price a start',
      description:
        'What `POST /generate` (`kind: "video"`) or `POST /generate-image` (`kind: "image"`) would charge for the same parameters, the balance it would be charged to, and whether it would be accepted now: `reason` is null or the 403 code the start would answer (`paid_access_required`, `spend_limit_exceeded`, `insufficient_credits`, checked in that order). Invalid parameters get the 400 the start would give, word for word. Nothing is charged and no task is made.',
      tag: 'Models',
      request: { body: { required: true, description: 'Unknown fields are ignored.', ...json(quoteRequest, QUOTE_EXAMPLE) } },
      success: {
        description: 'The quote.',
        ...json(quoteResponse, ok({ kind: 'video', model: 'vid-2-0', credits: 38, balance: 120, can_start: true, reason: null })),
      },
      errors: [400, 401, 413, 429, 500],
      curl: `curl -s -X POST "{BASE}/quote" ${AUTH} \\\n  -H 'Content-Type: application/json' \\\n  -d '${JSON.stringify(QUOTE_EXAMPLE)}'`,
    },
  },
];
