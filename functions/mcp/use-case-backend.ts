import { ReferenceImages, ReferenceUnavailableError } from '#adapters/reference-images';
import { lifecycle } from '#app-context/lifecycle';
import { outputDeletion } from '#app-context/output-deletion';
import { appMediaStorage, uploadStorage } from '#app-context/media';
import { stores } from '#app-context/stores';
import { quoteDeps } from '#app-context/quotes';
import { toCreditsView } from '#contract/credits';
import { MODEL_LIST } from '#contract/models';
import { parseQuote, toQuoteView } from '#contract/quote';
import { quoteStart } from '#domain/tasks/quote';
import { usageReportView } from '#contract/usage';
import { getUsage } from '#domain/usage/report';
import { parseImageStart } from '#contract/generate-image';
import { parseVideoStart } from '#contract/generate-video';
import { imagePageView, imageView, videoPageView, videoView } from '#contract/tasks';
import { uploadedImageView } from '#contract/uploads';
import { cancelTask } from '#domain/tasks/cancel-task';
import { deleteTaskOutputs } from '#domain/tasks/output-deletion';
import { ValidationError } from '#domain/shared/errors';
import { getCallerAccount } from '#domain/accounts/get-account';
import { getTask } from '#domain/tasks/get-task';
import { listTasks } from '#domain/tasks/list-tasks';
import type { Principal } from '#domain/accounts/principal';
import { spendingKeyOf } from '#domain/accounts/spending-key';
import { startTask } from '#domain/tasks/start-task';
import type { Task } from '#domain/tasks/task';
import { storeUpload } from '#domain/uploads/uploads';
import { checkCapability } from '#http/access';
import { toHttpError } from '#http/error-mapping';
import { logger } from '#observability/logger';
import type { TaskKind, ToolBackend } from './tools';

const view = (task: Task) => (task.kind === 'video' ? videoView(task) : imageView(task));

/**
 * The hosted server's tools: the routes' use cases and views, called in process for the key's
 * account (no HTTP hop), their errors mapped as the routes map them.
 */
export function useCaseBackend(principal: Principal): ToolBackend {
  const { partitionId: accountId } = principal;
  // Each tool needs the capability of the endpoint it mirrors: a key's scope, a session's role (403 `forbidden` as a tool error).
  const scoped = (capability: 'read' | 'generate') => checkCapability(principal, capability);
  return {
    generateVideo: async (body) => {
      scoped('generate');
      return videoView(await startTask(lifecycle(), accountId, parseVideoStart(body), undefined, spendingKeyOf(principal)));
    },
    generateImage: async (body) => {
      scoped('generate');
      return imageView(await startTask(lifecycle(), accountId, parseImageStart(body), undefined, spendingKeyOf(principal)));
    },
    getTask: async (kind, id) => {
      scoped('read');
      return view(await getTask(lifecycle(), accountId, kind, id));
    },
    cancelTask: async (kind, id) => {
      scoped('generate');
      return view(await cancelTask(lifecycle(), accountId, kind, id));
    },
    deleteTask: async (kind, id) => {
      scoped('generate');
      return view(await deleteTaskOutputs(outputDeletion(), accountId, kind, id));
    },
    listTasks: async (kind: TaskKind, { page = 1, limit = 20, end_user: endUser }) => {
      scoped('read');
      return kind === 'video'
        ? videoPageView(await listTasks(stores(), accountId, 'video', page, limit, new Date(), endUser))
        : imagePageView(await listTasks(stores(), accountId, 'image', page, limit, new Date(), endUser));
    },
    uploadImage: async (source) => {
      scoped('generate');
      const bytes = 'bytes' in source ? source.bytes : await readReference(source.url);
      return uploadedImageView(await storeUpload(uploadStorage(), accountId, bytes));
    },
    getCredits: async () => {
      scoped('read');
      return toCreditsView(await getCallerAccount(stores().accounts, accountId));
    },
    listModels: async () => {
      scoped('read');
      return MODEL_LIST;
    },
    quote: async (body) => {
      scoped('read');
      const quote = await quoteStart(quoteDeps(), accountId, parseQuote(body), spendingKeyOf(principal));
      return toQuoteView(quote, quote.refusal && toHttpError(quote.refusal).code);
    },
    getUsage: async (query) => {
      scoped('read');
      return usageReportView(await getUsage(stores().usage, accountId, { from: query.from, to: query.to, groupBy: query.group_by }, new Date()));
    },
    describeError: (error) => {
      const { status, code, message } = toHttpError(error);
      if (status >= 500) logger.error('mcp tool call failed', { status, error: error as Error });
      return { code, message };
    },
  };
}

let references: ReferenceImages | undefined;

/** An image to copy, fetched as image_url references are (public addresses only, bounded). */
async function readReference(url: string): Promise<Buffer> {
  try {
    references ??= new ReferenceImages(appMediaStorage());
    return await references.read(url);
  } catch (error) {
    if (error instanceof ReferenceUnavailableError) throw new ValidationError(`url: ${error.reason}.`, 'url');
    throw error;
  }
}
