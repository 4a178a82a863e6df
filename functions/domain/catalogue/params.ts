import type {
  GenerationType,
  ImageAspectRatio,
  ImageModel,
  ImageResolution,
  OutputFormat,
  VideoAspectRatio,
  VideoModel,
  VideoResolution,
} from './catalogue';

/** What a start asks for, per kind: the catalogue's parameters. */

/** What every start may add: a seed for reproducible output, and what the output should not show. */
export interface GenerationExtras {
  /** 0 to 4294967295: the same seed and parameters give the same output where the model honours it. */
  seed?: number;
  /** Trimmed, 1 to 2000 characters. */
  negativePrompt?: string;
}

export interface VideoParams extends GenerationExtras {
  model: VideoModel;
  generationType: GenerationType;
  prompt: string;
  imageUrl?: string;
  /** The last frame (image_to_video, on models with the endImage capability). */
  endImageUrl?: string;
  aspectRatio: VideoAspectRatio;
  duration: number;
  resolution: VideoResolution;
}

export interface ImageParams extends GenerationExtras {
  model: ImageModel;
  prompt: string;
  resolution: ImageResolution;
  aspectRatio: ImageAspectRatio;
  outputFormat: OutputFormat;
  images?: string[];
}
