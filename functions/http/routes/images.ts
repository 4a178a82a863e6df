import { EXAMPLE_IMAGE, EXAMPLE_IMAGE_DELETED, EXAMPLE_IMAGE_DONE } from '#contract/examples';
import { generateImageRequest } from '#contract/generate-image';
import { imageIdParam } from '#contract/params';
import { imagePageResponse, imageTaskResponse } from '#contract/tasks';
import { taskDocs } from './task-routes';

/** Images: start (or edit), list, get and cancel. */
export const IMAGE_DOCS = taskDocs({
  kind: 'image',
  article: 'an',
  tag: 'Images',
  idParam: imageIdParam,
  taskResponse: imageTaskResponse,
  pageResponse: imagePageResponse,
  examples: { started: EXAMPLE_IMAGE, completed: EXAMPLE_IMAGE_DONE, deleted: EXAMPLE_IMAGE_DELETED },
  generate: {
    path: '/generate-image',
    handler: 'generate-image',
    description:
      'Starts an image task with the image model; with `images` (1 to 10 URLs) it edits those images. Needs paid access and an active subscription. Charged at once, refunded in full if the task fails; poll `GET /images/{image_id}` until it is final.\n\nChecks, in this order: key (401), rate limit (429), validation (400), paid access (403 `paid_access_required`), credits (403 `insufficient_credits`), submission (502).',
    request: generateImageRequest,
    example: { prompt: 'a lighthouse at dusk', resolution: '2k', aspect_ratio: '16:9', output_format: 'webp' },
  },
  getDescription: 'The task and its status, refreshed from the provider while `processing` (same rules as videos).',
});
