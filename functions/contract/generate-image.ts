import * as z from 'zod';
import {
  DEFAULT_IMAGE_ASPECT_RATIO,
  DEFAULT_IMAGE_MODEL,
  DEFAULT_IMAGE_RESOLUTION,
  DEFAULT_OUTPUT_FORMAT,
  IMAGE_ASPECT_RATIOS,
  IMAGE_MODEL_IDS,
  IMAGE_RESOLUTIONS,
  MAX_REFERENCE_IMAGES,
  OUTPUT_FORMATS,
} from '#domain/catalogue/catalogue';
import type { ImageParams } from '#domain/catalogue/params';
import { attributionOf } from '#domain/tasks/attribution';
import type { StartRequest } from '#domain/tasks/start-rules';
import { ValidationError } from '#domain/shared/errors';
import { deliveryFields, deliveryRequestOf } from './destinations';
import { endUserField, httpUrl, jsonObject, metadataField, negativePromptField, oneOf, promptField, refuseUnsupported, seedField } from './fields';

/** POST /api/v1/generate-image: the body, with the defaults a missing field takes. */
export const generateImageBody = jsonObject({
  prompt: promptField,
  model: oneOf(IMAGE_MODEL_IDS).default(DEFAULT_IMAGE_MODEL),
  resolution: oneOf(IMAGE_RESOLUTIONS).default(DEFAULT_IMAGE_RESOLUTION),
  aspect_ratio: oneOf(IMAGE_ASPECT_RATIOS).default(DEFAULT_IMAGE_ASPECT_RATIO),
  output_format: oneOf(OUTPUT_FORMATS).default(DEFAULT_OUTPUT_FORMAT),
  images: z
    .array(httpUrl, { error: `must be an array of 1 to ${MAX_REFERENCE_IMAGES} absolute http(s) URLs` })
    .min(1, `must have 1 to ${MAX_REFERENCE_IMAGES} URLs`)
    .max(MAX_REFERENCE_IMAGES, `must have 1 to ${MAX_REFERENCE_IMAGES} URLs`)
    .optional(),
  seed: seedField.optional(),
  negative_prompt: negativePromptField.optional(),
  end_user: endUserField.optional(),
  metadata: metadataField.optional(),
  ...deliveryFields,
}).superRefine((body, ctx) => refuseUnsupported(body, 'image', ctx));

/** The body as the API reference names it (`.meta` returns a copy: the schema above is unchanged). */
export const generateImageRequest = generateImageBody.meta({ id: 'GenerateImageRequest' });

/** The start the body asks for: its parameters and who it is for. */
export function parseImageStart(body: unknown): StartRequest & { kind: 'image' } {
  const parsed = generateImageBody.parse(body);
  // Not a field of this body (unknown fields are ignored), but a likely mistake worth a clear 400.
  if (typeof body === 'object' && body !== null && 'thumbnail_destination' in body) {
    throw new ValidationError('thumbnail_destination: images have no thumbnail; use output_destination.', 'thumbnail_destination');
  }
  return { kind: 'image', params: imageParamsOf(parsed), ...attributionOf(parsed.end_user, parsed.metadata), ...deliveryRequestOf(parsed) };
}

export const parseGenerateImage = (body: unknown): ImageParams => parseImageStart(body).params;

function imageParamsOf(parsed: z.infer<typeof generateImageBody>): ImageParams {
  return {
    model: parsed.model,
    prompt: parsed.prompt,
    resolution: parsed.resolution,
    aspectRatio: parsed.aspect_ratio,
    outputFormat: parsed.output_format,
    ...(parsed.images && { images: parsed.images }),
    ...(parsed.seed !== undefined && { seed: parsed.seed }),
    ...(parsed.negative_prompt !== undefined && { negativePrompt: parsed.negative_prompt }),
  };
}
