import * as z from 'zod';
import {
  DEFAULT_GENERATION_TYPE,
  DEFAULT_VIDEO_ASPECT_RATIO,
  DEFAULT_VIDEO_MODEL,
  DEFAULT_VIDEO_RESOLUTION,
  GENERATION_TYPES,
  VIDEO_ASPECT_RATIOS,
  VIDEO_DURATION,
  VIDEO_MODEL_IDS,
  VIDEO_RESOLUTIONS,
} from '#domain/catalogue/catalogue';
import type { VideoParams } from '#domain/catalogue/params';
import { attributionOf } from '#domain/tasks/attribution';
import type { StartRequest } from '#domain/tasks/start-rules';
import { deliveryFields, deliveryRequestOf, thumbnailDestinationField } from './destinations';
import { endUserField, httpUrl, jsonObject, metadataField, negativePromptField, oneOf, promptField, refuseUnsupported, seedField } from './fields';

/** POST /api/v1/generate: the body, with the defaults a missing field takes. */
export const generateVideoBody = jsonObject({
  prompt: promptField,
  model: oneOf(VIDEO_MODEL_IDS).default(DEFAULT_VIDEO_MODEL),
  generation_type: oneOf(GENERATION_TYPES).default(DEFAULT_GENERATION_TYPE),
  image_url: httpUrl.optional(),
  end_image_url: httpUrl.optional(),
  aspect_ratio: oneOf(VIDEO_ASPECT_RATIOS).default(DEFAULT_VIDEO_ASPECT_RATIO),
  duration: z
    .number({ error: `must be a whole number of seconds from ${VIDEO_DURATION.min} to ${VIDEO_DURATION.max}` })
    .int(`must be a whole number of seconds from ${VIDEO_DURATION.min} to ${VIDEO_DURATION.max}`)
    .min(VIDEO_DURATION.min, `must be at least ${VIDEO_DURATION.min} seconds`)
    .max(VIDEO_DURATION.max, `must be at most ${VIDEO_DURATION.max} seconds`)
    .default(VIDEO_DURATION.default),
  resolution: oneOf(VIDEO_RESOLUTIONS).default(DEFAULT_VIDEO_RESOLUTION),
  seed: seedField.optional(),
  negative_prompt: negativePromptField.optional(),
  end_user: endUserField.optional(),
  metadata: metadataField.optional(),
  ...deliveryFields,
  ...thumbnailDestinationField,
}).superRefine((body, ctx) => {
  if (body.thumbnail_destination !== undefined && body.output_destination === undefined) {
    ctx.addIssue({ code: 'custom', path: ['thumbnail_destination'], message: 'needs an output_destination for the video too' });
  }
  if (body.generation_type === 'image_to_video' && body.image_url === undefined) {
    ctx.addIssue({ code: 'custom', path: ['image_url'], message: 'is required when generation_type is image_to_video' });
  }
  if (body.generation_type === 'text_to_video' && body.image_url !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['image_url'],
      message: 'is only allowed when generation_type is image_to_video',
    });
  }
  if (body.generation_type === 'text_to_video' && body.end_image_url !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['end_image_url'],
      message: 'is only allowed when generation_type is image_to_video (the video starts on image_url and ends on it)',
    });
  } else {
    refuseUnsupported(body, 'video', ctx);
  }
});

/** The body as the API reference names it (`.meta` returns a copy: the schema above is unchanged). */
export const generateVideoRequest = generateVideoBody.meta({ id: 'GenerateVideoRequest' });

/** The start the body asks for: its parameters and who it is for. */
export function parseVideoStart(body: unknown): StartRequest & { kind: 'video' } {
  const parsed = generateVideoBody.parse(body);
  return { kind: 'video', params: videoParamsOf(parsed), ...attributionOf(parsed.end_user, parsed.metadata), ...deliveryRequestOf(parsed) };
}

export const parseGenerateVideo = (body: unknown): VideoParams => parseVideoStart(body).params;

function videoParamsOf(parsed: z.infer<typeof generateVideoBody>): VideoParams {
  return {
    model: parsed.model,
    generationType: parsed.generation_type,
    prompt: parsed.prompt,
    ...(parsed.image_url !== undefined && { imageUrl: parsed.image_url }),
    ...(parsed.end_image_url !== undefined && { endImageUrl: parsed.end_image_url }),
    aspectRatio: parsed.aspect_ratio,
    duration: parsed.duration,
    resolution: parsed.resolution,
    ...(parsed.seed !== undefined && { seed: parsed.seed }),
    ...(parsed.negative_prompt !== undefined && { negativePrompt: parsed.negative_prompt }),
  };
}
