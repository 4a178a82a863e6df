import type { OutputDeletionDeps } from '#domain/tasks/output-deletion';
import { taskEndingsOf } from '#domain/webhooks/deliveries';
import { powertoolsTelemetry } from '#observability/telemetry';
import { appMediaStorage } from './media';
import { stores } from './stores';
import { webhookEvents } from './webhook-events';

let current: OutputDeletionDeps | undefined;

/** What deleting outputs needs: the tasks, our storage and the events of an ending not announced yet; no provider. */
export function outputDeletion(): OutputDeletionDeps {
  current ??= {
    tasks: stores().tasks,
    media: appMediaStorage(),
    events: taskEndingsOf(webhookEvents()),
    clock: () => new Date(),
    telemetry: powertoolsTelemetry,
  };
  return current;
}
