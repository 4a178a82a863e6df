import type { InFlightList, StartRepair, StartResult, StartWrite, TaskRef, TaskStore } from '#domain/tasks/ports';
import type { Task, TaskError, TaskKind } from '#domain/tasks/task';
import type { Telemetry } from '#domain/shared/telemetry';
import { readLedgerCount } from './ledger-positions';
import type { Db } from './dynamo-client';
import { getTask, listCompletedBefore, listInFlight, listTaskPage, listUnannounced } from './tasks/queries';
import { settlePositions, startTask } from './tasks/start';
import { repairStart } from './tasks/start-repair';
import { listEndUserPage } from './tasks/end-user-history';
import { transition } from './tasks/transition';
import type { Phase } from '#domain/tasks/phase';
import type { TaskPatch } from '#domain/tasks/transitions';

/**
 * The TaskStore on DynamoDB, one concern per module under tasks/: the charged start
 * (start.ts: one transaction, then its positions settled) and the legacy drafts' repair (start-repair.ts), the one conditional transition (transition.ts)
 * with the fail-and-refund transaction (refund-transaction.ts), and the reads (queries.ts).
 */
export class DynamoTaskStore implements TaskStore {
  constructor(private readonly db: Db, private readonly telemetry: Telemetry) {}

  start(write: StartWrite): Promise<StartResult> {
    return startTask(this.db, write);
  }

  settlePositions(task: Task): Promise<Task> {
    return settlePositions(this.db, task);
  }

  repairStart(draft: Task, error: TaskError, now: string): Promise<StartRepair> {
    return repairStart(this.db, draft, error, now);
  }

  get(accountId: string, taskId: string): Promise<Task | undefined> {
    return getTask(this.db, accountId, taskId);
  }

  async getForRefund(accountId: string, taskId: string): Promise<{ task: Task | undefined; ledgerSeen?: number }> {
    const [task, ledgerSeen] = await Promise.all([getTask(this.db, accountId, taskId), readLedgerCount(this.db, accountId)]);
    return { task, ...(ledgerSeen !== undefined && { ledgerSeen }) };
  }

  listPage(accountId: string, kind: TaskKind, page: number, limit: number): Promise<{ tasks: Task[]; total: number }> {
    return listTaskPage(this.db, accountId, kind, page, limit);
  }

  listEndUserPage(partitionId: string, endUser: string, kind: TaskKind, page: number, limit: number): Promise<{ tasks: Task[]; total: number }> {
    return listEndUserPage(this.db, partitionId, endUser, kind, page, limit);
  }

  listInFlight(list: InFlightList): AsyncIterable<TaskRef>[] {
    return listInFlight(this.db, list);
  }

  listUnannounced(): AsyncIterable<TaskRef>[] {
    return listUnannounced(this.db);
  }

  listCompletedBefore(partitionId: string, before: string): AsyncIterable<TaskRef> {
    return listCompletedBefore(this.db, partitionId, before);
  }

  transition(task: Task, from: readonly Phase[], to: Phase | 'same', patch: TaskPatch): Promise<Task | undefined> {
    return transition(this.db, task, from, to, patch);
  }
}
