/**
 * The model catalogue: ids, prices, subscription requirements and allowed parameters, as data.
 * Schemas, pricing, the paid-access check and the docs all read from here.
 */

export const VIDEO_MODELS = {
  // typicalSeconds: how long a task usually takes upstream, for the progress estimate.
  'vid-1-5-pro': { name: 'Lite video model', creditsPerSecond: 5, subscriptionRequired: false, typicalSeconds: 60 },
  'vid-2-0': { name: 'Standard 1.0 video model', creditsPerSecond: 7.5, subscriptionRequired: true, typicalSeconds: 120 },
  'vid-2-0-fast': { name: 'Fast 1.0 video model', creditsPerSecond: 5, subscriptionRequired: true, typicalSeconds: 45 },
} as const;
export type VideoModel = keyof typeof VIDEO_MODELS;
export const VIDEO_MODEL_IDS = Object.keys(VIDEO_MODELS) as [VideoModel, ...VideoModel[]];
export const DEFAULT_VIDEO_MODEL: VideoModel = 'vid-1-5-pro';

export const IMAGE_MODELS = {
  'image-2': { name: 'Image model 2.0', creditsPerImage: 5, subscriptionRequired: true, typicalSeconds: 15 },
} as const;
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

export const IMAGE_RESOLUTIONS = ['1k', '2k', '4k'] as const;
export type ImageResolution = (typeof IMAGE_RESOLUTIONS)[number];
export const IMAGE_ASPECT_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'] as const;
export type ImageAspectRatio = (typeof IMAGE_ASPECT_RATIOS)[number];
export const OUTPUT_FORMATS = ['png', 'jpg', 'webp'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const MAX_REFERENCE_IMAGES = 10;

export const PROMPT_MAX_LENGTH = 5000;

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
