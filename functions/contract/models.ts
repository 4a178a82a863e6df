import * as z from 'zod';
import {
  CATALOGUE,
  GENERATION_TYPES,
  IMAGE_ASPECT_RATIOS,
  IMAGE_MODEL_IDS,
  IMAGE_RESOLUTIONS,
  OUTPUT_FORMATS,
  VIDEO_ASPECT_RATIOS,
  VIDEO_MODEL_IDS,
  VIDEO_RESOLUTIONS,
  type CatalogueEntry,
} from '#domain/catalogue/catalogue';
import { successEnvelopeSchema } from './envelope';

/** GET /models: the catalogue (domain/catalogue.ts) in the API's words. */

const capabilities = z
  .object({
    image_to_video: z.boolean().meta({ description: 'Animates `image_url` (`generation_type: image_to_video`).' }),
    end_image: z.boolean().meta({ description: 'Ends the video on `end_image_url` (image_to_video only).' }),
    seed: z.boolean().meta({ description: 'Takes `seed`: the same seed and parameters give the same output.' }),
    negative_prompt: z.boolean().meta({ description: 'Takes `negative_prompt`.' }),
    reference_images: z.boolean().meta({ description: 'Edits the reference `images` (image models).' }),
  })
  .meta({ id: 'ModelCapabilities', description: 'What the model takes; a request using a capability its model lacks is refused (400 naming the field).' });

const pricing = <U extends 'second' | 'image'>(unit: U) =>
  z.object({
    unit: z.literal(unit),
    credits_per_unit: z.number().positive().meta({ description: `Credits per ${unit}.` }),
    rounding: z.literal('up_per_task').meta({ description: 'The task\'s price (units × credits_per_unit) is rounded up to a whole credit, once per task.' }),
  });

const common = {
  name: z.string().meta({ description: 'Display name.' }),
  subscription_required: z.boolean().meta({ description: 'Needs paid access and an active subscription (see `GET /credits`).' }),
  capabilities,
};

const videoModel = z
  .object({
    id: z.enum(VIDEO_MODEL_IDS).meta({ description: 'The `model` of `POST /generate`.' }),
    kind: z.literal('video'),
    ...common,
    pricing: pricing('second'),
    defaults: z.object({
      generation_type: z.enum(GENERATION_TYPES),
      aspect_ratio: z.enum(VIDEO_ASPECT_RATIOS),
      resolution: z.enum(VIDEO_RESOLUTIONS),
      duration: z.number().int(),
    }).meta({ description: 'What a parameter left out takes.' }),
    parameters: z.object({
      aspect_ratio: z.array(z.enum(VIDEO_ASPECT_RATIOS)),
      resolution: z.array(z.enum(VIDEO_RESOLUTIONS)),
      duration: z.object({ min: z.number().int(), max: z.number().int() }).meta({ description: 'Whole seconds.' }),
    }).meta({ description: 'The values each parameter accepts.' }),
  })
  .meta({ id: 'VideoModelEntry' });

const imageModel = z
  .object({
    id: z.enum(IMAGE_MODEL_IDS).meta({ description: 'The `model` of `POST /generate-image`.' }),
    kind: z.literal('image'),
    ...common,
    pricing: pricing('image'),
    defaults: z.object({
      aspect_ratio: z.enum(IMAGE_ASPECT_RATIOS),
      resolution: z.enum(IMAGE_RESOLUTIONS),
      output_format: z.enum(OUTPUT_FORMATS),
    }).meta({ description: 'What a parameter left out takes.' }),
    parameters: z.object({
      aspect_ratio: z.array(z.enum(IMAGE_ASPECT_RATIOS)),
      resolution: z.array(z.enum(IMAGE_RESOLUTIONS)),
      output_format: z.array(z.enum(OUTPUT_FORMATS)),
    }).meta({ description: 'The values each parameter accepts.' }),
  })
  .meta({ id: 'ImageModelEntry' });

export const modelList = z
  .object({ models: z.array(z.discriminatedUnion('kind', [videoModel, imageModel])).meta({ description: 'Video models first.' }) })
  .meta({ id: 'ModelList' });
export type ModelListView = z.infer<typeof modelList>;

export const modelListResponse = successEnvelopeSchema('ModelListResponse', modelList);

function modelView(entry: CatalogueEntry): ModelListView['models'][number] {
  const { imageToVideo, endImage, seed, negativePrompt, referenceImages } = entry.capabilities;
  const shared = {
    name: entry.name,
    subscription_required: entry.subscriptionRequired,
    capabilities: { image_to_video: imageToVideo, end_image: endImage, seed, negative_prompt: negativePrompt, reference_images: referenceImages },
  };
  if (entry.kind === 'video') {
    const { defaults, parameters } = entry;
    return {
      id: entry.id,
      kind: 'video',
      ...shared,
      pricing: { unit: 'second', credits_per_unit: entry.pricing.creditsPerUnit, rounding: 'up_per_task' },
      defaults: {
        generation_type: defaults.generationType,
        aspect_ratio: defaults.aspectRatio,
        resolution: defaults.resolution,
        duration: defaults.duration,
      },
      parameters: { aspect_ratio: [...parameters.aspectRatio], resolution: [...parameters.resolution], duration: { ...parameters.duration } },
    };
  }
  const { defaults, parameters } = entry;
  return {
    id: entry.id,
    kind: 'image',
    ...shared,
    pricing: { unit: 'image', credits_per_unit: entry.pricing.creditsPerUnit, rounding: 'up_per_task' },
    defaults: { aspect_ratio: defaults.aspectRatio, resolution: defaults.resolution, output_format: defaults.outputFormat },
    parameters: {
      aspect_ratio: [...parameters.aspectRatio],
      resolution: [...parameters.resolution],
      output_format: [...parameters.outputFormat],
    },
  };
}

/** The whole answer, built once per process: the catalogue is code, so it cannot change while we run. */
export const MODEL_LIST: ModelListView = { models: CATALOGUE.map(modelView) };
