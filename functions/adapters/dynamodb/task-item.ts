import type { Task } from '../../domain/task';
import { inFlightEntry, taskHistoryKey, taskKey } from './keys';

/**
 * How a task is stored: snake_case attributes, params as a map, index keys while relevant. A
 * draft (seq 0: its start is not settled yet) has no history position and so no lsi1sk.
 */
export function toTaskItem(task: Task): Record<string, unknown> {
  return {
    ...taskKey(task.accountId, task.taskId),
    ...(task.seq > 0 && { lsi1sk: taskHistoryKey(task.kind, task.seq) }),
    ...(task.status === 'processing' && inFlightEntry(task.createdAt, task.taskId)),
    type: 'task',
    kind: task.kind,
    task_id: task.taskId,
    account_id: task.accountId,
    ...(task.seq > 0 && { seq: task.seq }),
    status: task.status,
    credits_used: task.creditsUsed,
    params: task.params,
    provider_name: task.provider?.name,
    provider_job_id: task.provider?.jobId,
    last_checked_at: task.lastCheckedAt,
    pending_outputs: task.pendingOutputs,
    copy_attempts: task.copyAttempts,
    output_urls: task.outputUrls,
    error: task.error,
    created_at: task.createdAt,
    updated_at: task.updatedAt,
    completed_at: task.completedAt,
  };
}

export function fromTaskItem(item: Record<string, any>): Task {
  return {
    kind: item.kind,
    taskId: item.task_id,
    accountId: item.account_id,
    seq: item.seq ?? 0,
    status: item.status,
    creditsUsed: item.credits_used,
    params: item.params,
    ...(item.provider_job_id && { provider: { name: item.provider_name, jobId: item.provider_job_id } }),
    ...(item.last_checked_at && { lastCheckedAt: item.last_checked_at }),
    ...(item.pending_outputs && { pendingOutputs: item.pending_outputs }),
    copyAttempts: item.copy_attempts ?? 0,
    ...(item.output_urls && { outputUrls: item.output_urls }),
    ...(item.error && { error: item.error }),
    createdAt: item.created_at,
    updatedAt: item.updated_at,
    ...(item.completed_at && { completedAt: item.completed_at }),
  } as Task;
}
