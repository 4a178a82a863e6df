/**
 * The model catalogue: ids, prices, subscription requirements, capabilities and allowed
 * parameters, as data. Schemas, pricing, the paid-access check, GET /models and the docs all
 * read from here.
 */

/**
 * What a model can do with a request. `endImage`: a last frame (`end_image_url`) for
 * image_to_video; `seed` and `negativePrompt`: honoured by the model; `referenceImages`: edit
 * mode (`images`). A request using one its model lacks is refused (400 naming the field).
 */
export interface Capabilities {
  imageToVideo: boolean;
  endImage: boolean;
  seed: boolean;
  negativePrompt: boolean;
  referenceImages: boolean;
}

interface ModelSpec {
  name: string;
  subscriptionRequired: boolean;
  /** How long a task usually takes upstream, for the progress estimate. */
  typicalSeconds: number;
  capabilities: Capabilities;
}

const VIDEO_CAPABILITIES = { imageToVideo: true, seed: true, negativePrompt: true, referenceImages: false } as const;

export const VIDEO_MODELS = {
  'vid-1-5-pro': {
    name: 'Lite video model',
    creditsPerSecond: 5,
    subscriptionRequired: false,
    typicalSeconds: 60,
    capabilities: { ...VIDEO_CAPABILITIES, endImage: true },
  },
  'vid-2-0': {
    name: 'Standard 1.0 video model',
    creditsPerSecond: 7.5,
    subscriptionRequired: true,
    typicalSeconds: 120,
    capabilities: { ...VIDEO_CAPABILITIES, endImage: true },
  },
  'vid-2-0-fast': {
    name: 'Fast 1.0 video model',
    creditsPerSecond: 5,
    subscriptionRequired: true,
    typicalSeconds: 45,
    capabilities: { ...VIDEO_CAPABILITIES, endImage: false },
  },
} as const satisfies Record<string, ModelSpec & { creditsPerSecond: number }>;
export type VideoModel = keyof typeof VIDEO_MODELS;
export const VIDEO_MODEL_IDS = Object.keys(VIDEO_MODELS) as [VideoModel, ...VideoModel[]];
export const DEFAULT_VIDEO_MODEL: VideoModel = 'vid-1-5-pro';

export const IMAGE_MODELS = {
  'image-2': {
    name: 'Image model 2.0',
    creditsPerImage: 5,
    subscriptionRequired: true,
    typicalSeconds: 15,
    capabilities: { imageToVideo: false, endImage: false, seed: true, negativePrompt: true, referenceImages: true },
  },
} as const satisfies Record<string, ModelSpec & { creditsPerImage: number }>;
export type ImageModel = keyof typeof IMAGE_MODELS;
export const IMAGE_MODEL_IDS = Object.keys(IMAGE_MODELS) as [ImageModel, ...ImageModel[]];
export const DEFAULT_IMAGE_MODEL: ImageModel = 'image-2';

export const GENERATION_TYPES = ['text_to_video', 'image_to_video'] as const;
export type GenerationType = (typeof GENERATION_TYPES)[number];

export const VIDEO_ASPECT_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'] as const;
export type VideoAspectRatio = (typeof VIDEO_ASPECT_RATIOS)[number];
export const VIDEO_RESOLUTIONS = ['480p', '720p', '1080p'] as const;
export type VideoResolution = (typeof VIDEO_RESOLUTIONS)[number];
export const VIDEO_DURATION = { min: 3, max: 12, default: 5 } as const;
export const DEFAULT_GENERATION_TYPE: GenerationType = 'text_to_video';
export const DEFAULT_VIDEO_ASPECT_RATIO: VideoAspectRatio = '16:9';
export const DEFAULT_VIDEO_RESOLUTION: VideoResolution = '720p';

export const IMAGE_RESOLUTIONS = ['1k', '2k', '4k'] as const;
export type ImageResolution = (typeof IMAGE_RESOLUTIONS)[number];
export const IMAGE_ASPECT_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'] as const;
export type ImageAspectRatio = (typeof IMAGE_ASPECT_RATIOS)[number];
export const OUTPUT_FORMATS = ['png', 'jpg', 'webp'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const MAX_REFERENCE_IMAGES = 10;
export const DEFAULT_IMAGE_RESOLUTION: ImageResolution = '1k';
export const DEFAULT_IMAGE_ASPECT_RATIO: ImageAspectRatio = '1:1';
export const DEFAULT_OUTPUT_FORMAT: OutputFormat = 'png';

export const PROMPT_MAX_LENGTH = 5000;
export const NEGATIVE_PROMPT_MAX_LENGTH = 2000;
/** Seeds are unsigned 32-bit integers, as most providers take them. */
export const SEED_RANGE = { min: 0, max: 4_294_967_295 } as const;

/** Credits for one video: per-second price times duration, rounded up per video (7.5 x 5 = 38). */
export function videoPrice(model: VideoModel, durationSeconds: number): number {
  return Math.ceil(VIDEO_MODELS[model].creditsPerSecond * durationSeconds);
}

export function imagePrice(model: ImageModel): number {
  return IMAGE_MODELS[model].creditsPerImage;
}

export function subscriptionRequired(model: VideoModel | ImageModel): boolean {
  return model in VIDEO_MODELS
    ? VIDEO_MODELS[model as VideoModel].subscriptionRequired
    : IMAGE_MODELS[model as ImageModel].subscriptionRequired;
}

export function capabilitiesOf(model: VideoModel | ImageModel): Capabilities {
  return model in VIDEO_MODELS ? VIDEO_MODELS[model as VideoModel].capabilities : IMAGE_MODELS[model as ImageModel].capabilities;
}

/** The models of a kind that have a capability, for the message refusing one that lacks it. */
export function modelsWith(capability: keyof Capabilities, kind: 'video' | 'image'): string[] {
  const ids: readonly (VideoModel | ImageModel)[] = kind === 'video' ? VIDEO_MODEL_IDS : IMAGE_MODEL_IDS;
  return ids.filter((id) => capabilitiesOf(id)[capability]);
}

/** One model as the catalogue lists it (GET /models): kind, price, defaults, allowed values, capabilities. */
export type CatalogueEntry =
  | (EntryBase & {
      kind: 'video';
      id: VideoModel;
      pricing: { unit: 'second'; creditsPerUnit: number };
      defaults: {
        generationType: GenerationType;
        aspectRatio: VideoAspectRatio;
        resolution: VideoResolution;
        duration: number;
      };
      parameters: {
        aspectRatio: readonly VideoAspectRatio[];
        resolution: readonly VideoResolution[];
        duration: { min: number; max: number };
      };
    })
  | (EntryBase & {
      kind: 'image';
      id: ImageModel;
      pricing: { unit: 'image'; creditsPerUnit: number };
      defaults: { aspectRatio: ImageAspectRatio; resolution: ImageResolution; outputFormat: OutputFormat };
      parameters: {
        aspectRatio: readonly ImageAspectRatio[];
        resolution: readonly ImageResolution[];
        outputFormat: readonly OutputFormat[];
      };
    });

interface EntryBase {
  name: string;
  subscriptionRequired: boolean;
  capabilities: Capabilities;
}

/**
 * Every model, videos first, each priced per unit and rounded up once per task (videoPrice):
 * the catalogue GET /models answers with. Built once, from the constants above.
 */
export const CATALOGUE: readonly CatalogueEntry[] = [
  ...VIDEO_MODEL_IDS.map(
    (id): CatalogueEntry => ({
      kind: 'video',
      id,
      name: VIDEO_MODELS[id].name,
      subscriptionRequired: VIDEO_MODELS[id].subscriptionRequired,
      pricing: { unit: 'second', creditsPerUnit: VIDEO_MODELS[id].creditsPerSecond },
      defaults: {
        generationType: DEFAULT_GENERATION_TYPE,
        aspectRatio: DEFAULT_VIDEO_ASPECT_RATIO,
        resolution: DEFAULT_VIDEO_RESOLUTION,
        duration: VIDEO_DURATION.default,
      },
      parameters: {
        aspectRatio: VIDEO_ASPECT_RATIOS,
        resolution: VIDEO_RESOLUTIONS,
        duration: { min: VIDEO_DURATION.min, max: VIDEO_DURATION.max },
      },
      capabilities: VIDEO_MODELS[id].capabilities,
    }),
  ),
  ...IMAGE_MODEL_IDS.map(
    (id): CatalogueEntry => ({
      kind: 'image',
      id,
      name: IMAGE_MODELS[id].name,
      subscriptionRequired: IMAGE_MODELS[id].subscriptionRequired,
      pricing: { unit: 'image', creditsPerUnit: IMAGE_MODELS[id].creditsPerImage },
      defaults: { aspectRatio: DEFAULT_IMAGE_ASPECT_RATIO, resolution: DEFAULT_IMAGE_RESOLUTION, outputFormat: DEFAULT_OUTPUT_FORMAT },
      parameters: { aspectRatio: IMAGE_ASPECT_RATIOS, resolution: IMAGE_RESOLUTIONS, outputFormat: OUTPUT_FORMATS },
      capabilities: IMAGE_MODELS[id].capabilities,
    }),
  ),
];
