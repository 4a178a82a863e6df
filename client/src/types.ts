/**
 * The API's resources as it returns them (CONTRACT.md): snake_case field names, ISO 8601 UTC
 * timestamps. Type-only: nothing here exists at run time.
 */

/** `processing` until the task ends; `completed` and `failed` are final and never change again. */
export type TaskStatus = 'processing' | 'completed' | 'failed';

/** Why a task failed. */
export interface TaskError {
  message: string;
  /** `upstream_error`, `content_rejected`, `timeout` or `internal_error`. */
  code: 'upstream_error' | 'content_rejected' | 'timeout' | 'internal_error' | (string & {});
}

export type VideoModel = 'vid-1-5-pro' | 'vid-2-0' | 'vid-2-0-fast';
export type GenerationType = 'text_to_video' | 'image_to_video';
export type VideoAspectRatio = '16:9' | '9:16' | '1:1' | '4:3' | '3:4' | '21:9';
export type VideoResolution = '480p' | '720p' | '1080p';

export type ImageModel = 'image-2';
export type ImageResolution = '1k' | '2k' | '4k';
export type ImageAspectRatio = '1:1' | '2:3' | '3:2' | '3:4' | '4:3' | '4:5' | '5:4' | '9:16' | '16:9' | '21:9';
export type ImageFormat = 'png' | 'jpg' | 'webp';

export type SubscriptionStatus = 'none' | 'active' | 'past_due' | 'canceled';

/** Body of POST /generate. Only `prompt` is required; the API applies the defaults shown. */
export interface GenerateVideoParams {
  /** 1 to 5000 characters (trimmed). */
  prompt: string;
  /** Default `vid-1-5-pro`; `vid-2-0` and `vid-2-0-fast` need an active subscription. */
  model?: VideoModel;
  /** Default `text_to_video`; `image_to_video` needs `image_url`. */
  generation_type?: GenerationType;
  /** Absolute http(s) URL of the reference image (`image_to_video` only), e.g. from uploadImage(). */
  image_url?: string;
  /** Default `16:9`. */
  aspect_ratio?: VideoAspectRatio;
  /** Whole seconds, 3 to 12. Default 5. */
  duration?: number;
  /** Default `720p`. */
  resolution?: VideoResolution;
}

/** Body of POST /generate-image. Needs paid access and an active subscription. */
export interface GenerateImageParams {
  prompt: string;
  /** Default `image-2` (the only image model). */
  model?: ImageModel;
  /** Default `1k`. */
  resolution?: ImageResolution;
  /** Default `1:1`. */
  aspect_ratio?: ImageAspectRatio;
  /** Default `png`. */
  output_format?: ImageFormat;
  /** 1 to 10 absolute http(s) URLs of reference images (edit mode). */
  images?: string[];
}

interface TaskTimes {
  created_at: string;
  updated_at: string;
  /** Present once the task is final. */
  completed_at?: string;
}

/** A video task, as returned by generateVideo, getVideo and listVideos. */
export interface VideoTask extends TaskTimes {
  video_id: string;
  status: TaskStatus;
  model: VideoModel;
  generation_type: GenerationType;
  prompt: string;
  /** `image_to_video` only. */
  image_url?: string;
  aspect_ratio: VideoAspectRatio;
  duration: number;
  resolution: VideoResolution;
  credits_used: number;
  /** Present when `completed`: a public URL, no key needed to download it. */
  video_url?: string;
  /** Present when `failed`. */
  error?: TaskError;
}

/** An image task, as returned by generateImage, getImage and listImages. */
export interface ImageTask extends TaskTimes {
  image_id: string;
  status: TaskStatus;
  model: ImageModel;
  prompt: string;
  resolution: ImageResolution;
  aspect_ratio: ImageAspectRatio;
  output_format: ImageFormat;
  /** The reference images (edit mode only). */
  images?: string[];
  credits_used: number;
  /** Present when `completed`: public URLs, no key needed to download them. */
  image_urls?: string[];
  /** Present when `failed`. */
  error?: TaskError;
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
  has_more: boolean;
}

/** GET /videos: newest first. A page past the end is an empty list. */
export interface VideoPage {
  videos: VideoTask[];
  pagination: Pagination;
}

/** GET /images: newest first. */
export interface ImagePage {
  images: ImageTask[];
  pagination: Pagination;
}

export interface PageParams {
  /** 1 or more. Default 1. */
  page?: number;
  /** 1 to 50. Default 20. */
  limit?: number;
}

/** POST /upload. */
export interface UploadedImage {
  /** Public URL of the stored image; pass it as `image_url` (or in `images`). */
  url: string;
  /** Decided from the file's bytes: `image/jpeg`, `image/png` or `image/webp`. */
  content_type: string;
  /** Bytes. */
  size: number;
}

/** POST /uploads: a presigned form for uploading straight to storage. */
export interface DirectUpload {
  /** `upl_...`, for POST /uploads/{upload_id}/complete. */
  upload_id: string;
  /** POST the fields, then the file as the last form field named `file`, to this URL. */
  upload_url: string;
  fields: Record<string, string>;
  /** Largest file accepted (10 MiB). */
  max_bytes: number;
  /** The form expires after 15 minutes. */
  expires_at: string;
}

/** GET /credits. */
export interface Credits {
  credits: number;
  paid_access: boolean;
  subscription_status: SubscriptionStatus;
}

/** The error codes the API documents; others may be added. */
export type ErrorCode =
  | 'validation_error'
  | 'unauthorized'
  | 'insufficient_credits'
  | 'paid_access_required'
  | 'not_found'
  | 'idempotency_conflict'
  | 'payload_too_large'
  | 'rate_limit_exceeded'
  | 'internal_error'
  | 'upstream_error'
  /** Added by this client: the API could not be reached (status 0). */
  | 'network_error'
  | (string & {});
