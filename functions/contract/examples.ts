/**
 * Example values the API reference shows. The OpenAPI tests validate every example against
 * its schema, so they cannot drift from the contract.
 */
export const EXAMPLE_VIDEO = {
  video_id: 'vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ',
  status: 'processing',
  model: 'vid-1-5-pro',
  generation_type: 'text_to_video',
  prompt: 'a red fox running through snow',
  aspect_ratio: '16:9',
  end_image_url: null,
  duration: 5,
  resolution: '720p',
  seed: null,
  negative_prompt: null,
  end_user: 'user_1842',
  metadata: { order_id: '1001' },
  credits_used: 25,
  credits_refunded: 0,
  queue_position: 0,
  estimated_completion_at: '2026-11-21T17:00:41.000Z',
  progress: 0,
  livemode: true,
  thumbnail_url: null,
  created_at: '2026-11-21T17:00:00.000Z',
  updated_at: '2026-11-21T17:00:00.000Z',
  output_deleted_at: null,
  expires_at: null,
  delivery: null,
};
/** A processing view's timing fields, which final views leave out. */
const { queue_position: _videoPlace, estimated_completion_at: _videoEnd, ...VIDEO_BASE } = EXAMPLE_VIDEO;
export const EXAMPLE_VIDEO_DONE = {
  ...VIDEO_BASE,
  status: 'completed',
  progress: 100,
  video_url: 'https://media.example.com/videos/vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ.mp4',
  thumbnail_url: 'https://media.example.com/videos/vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ.jpg',
  updated_at: '2026-11-21T17:00:41.000Z',
  completed_at: '2026-11-21T17:00:41.000Z',
};
export const EXAMPLE_IMAGE = {
  image_id: 'img_01M7ZP0E1WQ4R5N8B2C6D7F9GH',
  status: 'processing',
  model: 'image-2',
  prompt: 'a lighthouse at dusk',
  resolution: '2k',
  aspect_ratio: '16:9',
  output_format: 'webp',
  seed: 42,
  negative_prompt: 'people',
  end_user: null,
  metadata: {},
  credits_used: 5,
  credits_refunded: 0,
  queue_position: null,
  estimated_completion_at: null,
  progress: 0,
  livemode: true,
  created_at: '2026-11-21T17:00:00.000Z',
  updated_at: '2026-11-21T17:00:00.000Z',
  output_deleted_at: null,
  expires_at: null,
  delivery: null,
};
const { queue_position: _imagePlace, estimated_completion_at: _imageEnd, ...IMAGE_BASE } = EXAMPLE_IMAGE;
export const EXAMPLE_IMAGE_DONE = {
  ...IMAGE_BASE,
  status: 'completed',
  progress: 100,
  image_urls: ['https://media.example.com/images/img_01M7ZP0E1WQ4R5N8B2C6D7F9GH-1.webp'],
  updated_at: '2026-11-21T17:00:12.000Z',
  completed_at: '2026-11-21T17:00:12.000Z',
};
/** A completed task after `DELETE`: no result URLs, `output_deleted_at` set. */
export const EXAMPLE_VIDEO_DELETED = (({ video_url: _url, ...rest }) => ({
  ...rest,
  thumbnail_url: null,
  updated_at: '2026-11-22T09:30:00.000Z',
  output_deleted_at: '2026-11-22T09:30:00.000Z',
}))(EXAMPLE_VIDEO_DONE);
export const EXAMPLE_IMAGE_DELETED = (({ image_urls: _urls, ...rest }) => ({
  ...rest,
  updated_at: '2026-11-22T09:30:00.000Z',
  output_deleted_at: '2026-11-22T09:30:00.000Z',
}))(EXAMPLE_IMAGE_DONE);
export const EXAMPLE_TRANSACTIONS = [
  {
    transaction_id: 'txn_01M7ZNJ0R4T5V6W7X8Y9Z0A1B2',
    type: 'refund',
    amount: 25,
    task_id: 'vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ',
    reason: 'refund: video task failed',
    created_at: '2026-11-21T17:00:12.000Z',
  },
  {
    transaction_id: 'txn_01M7ZNHRE4A5B6C7D8E9F0G1H2',
    type: 'charge',
    amount: -25,
    task_id: 'vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ',
    reason: 'video generation (vid-1-5-pro)',
    created_at: '2026-11-21T17:00:00.000Z',
  },
  {
    transaction_id: 'txn_01M7ZMF8J1P87E686TGQYTVN2J',
    type: 'grant',
    amount: 1000,
    task_id: null,
    reason: 'opening balance',
    created_at: '2026-11-20T09:00:00.000Z',
  },
];

export const EXAMPLE_PAGINATION = { page: 1, limit: 20, total: 1, total_pages: 1, has_more: false };
export const EXAMPLE_UPLOAD = {
  url: 'https://media.example.com/uploads/6f1c0b6a3d2e4f5a8b9c0d1e2f3a4b5c.png',
  content_type: 'image/png',
  size: 48213,
};
export const EXAMPLE_WEBHOOK = {
  webhook_id: 'whk_01M7ZQ4XW6S3D2F1G0H9J8K7L6',
  url: 'https://example.com/hooks/vidgen',
  events: ['video.completed', 'video.failed'],
  description: null,
  created_at: '2026-11-21T17:00:00.000Z',
};
export const EXAMPLE_CREATED_WEBHOOK = { ...EXAMPLE_WEBHOOK, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
export const EXAMPLE_DELIVERY = {
  event_id: 'evt_01M7ZNHRE3YZJA4Y3XQS4DQDGQ',
  type: 'video.completed',
  status: 'delivered',
  attempts: 1,
  last_status_code: 200,
  last_error: null,
  last_attempt_at: '2026-11-21T17:00:42.000Z',
  next_attempt_at: null,
};

/** A success envelope around an example. */
export const ok = (data: unknown) => ({ data, error: null });
