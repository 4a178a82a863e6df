import { rateLimiter } from '#app-context/rate-limiter';
import { MODEL_LIST } from '#contract/models';
import { httpHandler } from '#http/http-handler';
import { spec } from './list-models.spec';

/** GET /api/v1/models: the catalogue, from memory (no read besides the rate counter). */
export const handler = httpHandler(spec, async () => MODEL_LIST, { rateLimiter });
