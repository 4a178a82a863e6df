import { EXAMPLE_VIDEO, EXAMPLE_VIDEO_DELETED, EXAMPLE_VIDEO_DONE } from '#contract/examples';
import { generateVideoRequest } from '#contract/generate-video';
import { videoIdParam } from '#contract/params';
import { videoPageResponse, videoTaskResponse } from '#contract/tasks';
import { taskDocs } from './task-routes';

/** Videos: start, list, get and cancel. */
export const VIDEO_DOCS = taskDocs({
  kind: 'video',
  article: 'a',
  tag: 'Videos',
  idParam: videoIdParam,
  taskResponse: videoTaskResponse,
  pageResponse: videoPageResponse,
  examples: { started: EXAMPLE_VIDEO, completed: EXAMPLE_VIDEO_DONE, deleted: EXAMPLE_VIDEO_DELETED },
  generate: {
    path: '/generate',
    handler: 'generate',
    description:
      'Starts a text-to-video task, or image-to-video with `image_url` (upload a local file first with `POST /upload`). The price is charged at once (see the model table in the introduction) and refunded in full if the task fails. The answer is the task, `processing`; poll `GET /videos/{video_id}` about every 5 seconds until it is `completed` or `failed`.\n\nChecks, in this order: key (401), rate limit (429), validation (400), subscription (403 `paid_access_required`), credits (403 `insufficient_credits`), submission to the provider (502).',
    request: generateVideoRequest,
    example: { prompt: 'a red fox running through snow', duration: 5 },
  },
  getDescription:
    'The task and its status. While it is `processing` the service asks the provider for news before answering (answers within 2 s of the last check may reuse it); if that check fails, the stored state is returned, still `processing`.',
});
