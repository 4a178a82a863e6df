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

/**
 * Generation tasks. A video task and an image task share one lifecycle (CONTRACT.md):
 * `processing -> completed` or `processing -> failed`, and a final task never changes again.
 */
export type TaskKind = 'video' | 'image';
export type TaskStatus = 'processing' | 'completed' | 'failed';
export type TaskErrorCode = 'upstream_error' | 'content_rejected' | 'timeout' | 'internal_error';

export interface TaskError {
  code: TaskErrorCode;
  message: string;
}

export interface VideoParams {
  model: VideoModel;
  generationType: GenerationType;
  prompt: string;
  imageUrl?: string;
  aspectRatio: VideoAspectRatio;
  duration: number;
  resolution: VideoResolution;
}

export interface ImageParams {
  model: ImageModel;
  prompt: string;
  resolution: ImageResolution;
  aspectRatio: ImageAspectRatio;
  outputFormat: OutputFormat;
  images?: string[];
}

interface TaskBase {
  taskId: string;
  accountId: string;
  /**
   * Position in the account's history of this kind (1, 2, ...): the key of history pages. 0 on
   * a draft, a task whose start is not settled yet (never shown: its id is not given out).
   */
  seq: number;
  status: TaskStatus;
  creditsUsed: number;
  /** Set once the provider accepted the job. */
  provider?: { name: string; jobId: string };
  /** When the provider was last asked about this task (polls within 2 s reuse it). */
  lastCheckedAt?: string;
  /** The provider's result URLs, waiting to be copied into our storage. */
  pendingOutputs?: string[];
  copyAttempts: number;
  /** Our copies of the results (completed only). */
  outputUrls?: string[];
  error?: TaskError;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
}

export interface VideoTask extends TaskBase {
  kind: 'video';
  params: VideoParams;
}

export interface ImageTask extends TaskBase {
  kind: 'image';
  params: ImageParams;
}

export type Task = VideoTask | ImageTask;
export type TaskParams = VideoParams | ImageParams;

export const isFinal = (status: TaskStatus): boolean => status !== 'processing';
