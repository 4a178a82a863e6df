import * as z from 'zod';
import {
  DEFAULT_IMAGE_MODEL,
  IMAGE_ASPECT_RATIOS,
  IMAGE_MODEL_IDS,
  IMAGE_RESOLUTIONS,
  MAX_REFERENCE_IMAGES,
  OUTPUT_FORMATS,
} from '#domain/catalogue';
import type { ImageParams } from '#domain/task';
import { httpUrl, jsonObject, oneOf, promptField } from './fields';

/** POST /api/v1/generate-image: the body, with the defaults a missing field takes. */
export const generateImageBody = jsonObject({
  prompt: promptField,
  model: oneOf(IMAGE_MODEL_IDS).default(DEFAULT_IMAGE_MODEL),
  resolution: oneOf(IMAGE_RESOLUTIONS).default('1k'),
  aspect_ratio: oneOf(IMAGE_ASPECT_RATIOS).default('1:1'),
  output_format: oneOf(OUTPUT_FORMATS).default('png'),
  images: z
    .array(httpUrl, { error: `must be an array of 1 to ${MAX_REFERENCE_IMAGES} absolute http(s) URLs` })
    .min(1, `must have 1 to ${MAX_REFERENCE_IMAGES} URLs`)
    .max(MAX_REFERENCE_IMAGES, `must have 1 to ${MAX_REFERENCE_IMAGES} URLs`)
    .optional(),
});

/** The body as the API reference names it (`.meta` returns a copy: the schema above is unchanged). */
export const generateImageRequest = generateImageBody.meta({ id: 'GenerateImageRequest' });

export function parseGenerateImage(body: unknown): ImageParams {
  const parsed = generateImageBody.parse(body);
  return {
    model: parsed.model,
    prompt: parsed.prompt,
    resolution: parsed.resolution,
    aspectRatio: parsed.aspect_ratio,
    outputFormat: parsed.output_format,
    ...(parsed.images && { images: parsed.images }),
  };
}
