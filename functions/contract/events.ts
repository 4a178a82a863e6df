import type { WebhookEvent } from '#domain/webhooks';
import { imageView, videoView } from './tasks';

/**
 * The body of a webhook event: `{ id, type, created_at, livemode, data }`, where `data` is the task view
 * exactly as GET /videos/{id} or /images/{id} returns it (`{ webhook_id }` for a test event).
 */
export function renderEvent(event: WebhookEvent): string {
  const { subject } = event;
  const data =
    subject.kind === 'test'
      ? { webhook_id: subject.webhookId }
      : subject.task.kind === 'video'
        ? videoView(subject.task)
        : imageView(subject.task);
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.createdAt, livemode: event.livemode, data });
}
