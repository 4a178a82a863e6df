import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type {
  GenerateImageParams,
  GenerateVideoParams,
  ImageTask,
  TaskEvent,
  QuoteParams,
  VidgenClient,
  VideoTask,
} from '#client';
import { verifyWebhook } from '#client';
import { UsageError, VIDGEN, type Command, type GenerateCommand, type ImageCommand, type KeysCommand, type MembersCommand, type WaitSettings } from './args';
import { download, DownloadError, numberedFile } from './download';
import {
  formatAccount,
  formatAccountList,
  formatAuditEvents,
  formatMemberList,
  formatReceivedInvitations,
  formatCredits,
  formatDeliveryList,
  formatFields,
  formatImageList,
  formatKeyList,
  formatModelList,
  formatQuote,
  formatSize,
  formatTransactionList,
  formatUsage,
  formatVideoList,
  formatWebhookList,
} from './format';
import { startProgress, type ProgressStream } from './progress';

export interface Io {
  stdout: { write(text: string): unknown };
  stderr: ProgressStream;
  /** Aborted on Ctrl-C: waiting and downloading stop at once. */
  signal: AbortSignal;
}

type Task = VideoTask | ImageTask;

/** Runs one command; resolves with the exit code. API and network failures are thrown. */
export async function runCommand(command: Exclude<Command, { name: 'help' | 'login' | 'logout' | 'mcp' }>, client: VidgenClient, io: Io): Promise<number> {
  const { signal } = io;
  const print = (text: string) => io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  const printData = (data: unknown, human: () => string) => print(command.json ? JSON.stringify(data, null, 2) : human());

  switch (command.name) {
    case 'credits': {
      const credits = await client.getCredits({ signal });
      printData(credits, () => formatCredits(credits));
      return 0;
    }
    case 'account': {
      if ('retentionDays' in command) {
        const changed = await client.updateAccount({ output_retention_days: command.retentionDays }, { signal });
        const days = changed.output_retention_days;
        printData(changed, () => (days === null ? `${changed.account_id} keeps results for good.` : `${changed.account_id} keeps results ${days} day${days === 1 ? '' : 's'} after they complete; older ones are deleted within minutes.`));
        return 0;
      }
      const account = await client.getAccount({ signal });
      printData(account, () => formatAccount(account));
      return 0;
    }
    case 'videos': {
      const page = await client.listVideos({ page: command.page, limit: command.limit, endUser: command.endUser }, { signal });
      printData(page, () => formatVideoList(page));
      return 0;
    }
    case 'images': {
      const page = await client.listImages({ page: command.page, limit: command.limit, endUser: command.endUser }, { signal });
      printData(page, () => formatImageList(page));
      return 0;
    }
    case 'transactions': {
      const page = await client.listTransactions({ page: command.page, limit: command.limit }, { signal });
      printData(page, () => formatTransactionList(page));
      return 0;
    }
    case 'usage': {
      const params = { from: command.from, to: command.to, group_by: command.groupBy };
      if (command.csv) {
        // The API's own bytes: the same file the console exports.
        io.stdout.write(await client.getUsageCsv(params, { signal }));
        return 0;
      }
      const report = await client.getUsage(params, { signal });
      printData(report, () => formatUsage(report));
      return 0;
    }
    case 'upload': {
      const uploaded = await upload(client, command.file, io);
      printData(uploaded, () => uploaded.url);
      return 0;
    }
    case 'generate': {
      const task = await client.generateVideo(await videoParams(command, client, io), { signal });
      return finish(task, command.wait, command.json, client, io, print);
    }
    case 'image': {
      const task = await client.generateImage(await imageParams(command, client, io), { signal });
      return finish(task, command.wait, command.json, client, io, print);
    }
    case 'models': {
      const list = await client.listModels({ signal });
      printData(list, () => formatModelList(list));
      return 0;
    }
    case 'quote': {
      const { start } = command;
      const params: QuoteParams =
        start.name === 'generate'
          ? { kind: 'video', ...(await videoParams(start, client, io)) }
          : { kind: 'image', ...(await imageParams(start, client, io)) };
      const quote = await client.quote(params, { signal });
      printData(quote, () => formatQuote(quote));
      return 0;
    }
    case 'status': {
      const task = command.kind === 'video' ? await client.getVideo(command.id, { signal }) : await client.getImage(command.id, { signal });
      return finish(task, command.wait, command.json, client, io, print);
    }
    case 'cancel': {
      const task = command.kind === 'video' ? await client.cancelVideo(command.id, { signal }) : await client.cancelImage(command.id, { signal });
      printData(task, () => formatFields(task));
      return 0;
    }
    case 'delete': {
      const task = command.kind === 'video' ? await client.deleteVideo(command.id, { signal }) : await client.deleteImage(command.id, { signal });
      printData(task, () => formatFields(task));
      return 0;
    }
    case 'events':
      return events(client, command, io, print);
    case 'keys':
      return keys(client, command, io, printData);
    case 'accounts': {
      const list = await client.listAccounts({ signal });
      printData(list, () => formatAccountList(list));
      return 0;
    }
    case 'members':
      return members(client, command, io, printData);
    case 'invitations': {
      if (command.action === 'accept') {
        const joined = await client.acceptInvitation(command.invitationId, { signal });
        printData(joined, () => `You are now ${joined.role} in ${joined.account_id}: act there with --account ${joined.account_id} (after ${VIDGEN} login again, or within the authorization cache's TTL).`);
        return 0;
      }
      const list = await client.listInvitations({ signal });
      printData(list, () => formatReceivedInvitations(list));
      return 0;
    }
    case 'audit': {
      const params = { ...(command.after !== undefined && { after: command.after }), ...(command.limit !== undefined && { limit: command.limit }) };
      if (command.csv) {
        io.stdout.write(await client.getAuditEventsCsv(params, { signal }));
        return 0;
      }
      const page = await client.listAuditEvents(params, { signal });
      printData(page, () => formatAuditEvents(page));
      return 0;
    }
    case 'webhooks': {
      if (command.action === 'listen') return listen(client, command.port, command.json, io, print);
      if (command.action === 'list') {
        const list = await client.listWebhooks({ signal });
        printData(list, () => formatWebhookList(list));
        return 0;
      }
      if (command.action === 'delete') {
        const deleted = await client.deleteWebhook(command.webhookId, { signal });
        printData(deleted, () => `Deleted webhook ${deleted.webhook_id}: nothing more is sent to it.`);
        return 0;
      }
      if (command.action === 'retry') {
        const retried = await client.retryDelivery(command.webhookId, command.eventId, { signal });
        printData(retried, () => `${retried.event_id} ${retried.status}: see ${VIDGEN} webhooks deliveries ${command.webhookId}`);
        return 0;
      }
      const page = await client.listWebhookDeliveries(command.webhookId, { page: command.page, limit: command.limit }, { signal });
      printData(page, () => formatDeliveryList(page));
      return 0;
    }
  }
}

/** `vidgen keys ...`: list, create (the key itself printed this once), update, revoke. */
async function keys(client: VidgenClient, command: KeysCommand, io: Io, printData: (data: unknown, human: () => string) => void): Promise<number> {
  const { signal } = io;
  switch (command.action) {
    case 'list': {
      const list = await client.listKeys({ signal });
      printData(list, () => formatKeyList(list));
      return 0;
    }
    case 'create': {
      const created = await client.createKey(
        {
          name: command.keyName,
          ...(command.mode !== undefined && { mode: command.mode }),
          ...(command.scopes !== undefined && { scopes: command.scopes }),
          ...(command.monthlySpendLimit !== undefined && { monthly_spend_limit: command.monthlySpendLimit }),
          ...(command.expiresAt !== undefined && { expires_at: command.expiresAt }),
        },
        { signal },
      );
      const warning = 'Store this key now: it will not be shown again.';
      printData(created, () => `${formatFields(created)}\n${warning}`);
      // --json keeps stdout JSON: the warning goes beside it.
      if (command.json) io.stderr.write(`${warning}\n`);
      return 0;
    }
    case 'update': {
      const updated = await client.updateKey(
        command.keyId,
        {
          ...(command.keyName !== undefined && { name: command.keyName }),
          ...(command.scopes !== undefined && { scopes: command.scopes }),
          ...(command.monthlySpendLimit !== undefined && { monthly_spend_limit: command.monthlySpendLimit }),
        },
        { signal },
      );
      printData(updated, () => formatFields(updated));
      return 0;
    }
    case 'revoke': {
      const revoked = await client.revokeKey(command.keyId, { signal });
      printData(revoked, () => `Revoked ${revoked.key_id} (${JSON.stringify(revoked.name)}, ${revoked.prefix ?? 'no prefix'}) at ${revoked.revoked_at}.`);
      return 0;
    }
  }
}

/** `vidgen members ...`: list, set-role, remove. */
async function members(client: VidgenClient, command: MembersCommand, io: Io, printData: (data: unknown, human: () => string) => void): Promise<number> {
  const { signal } = io;
  switch (command.action) {
    case 'list': {
      const list = await client.listMembers({ signal });
      printData(list, () => formatMemberList(list));
      return 0;
    }
    case 'set-role': {
      const member = await client.updateMember(command.holderId, { role: command.role }, { signal });
      printData(member, () => `${member.email} (${member.holder_id}) is now ${member.role}.`);
      return 0;
    }
    case 'invite': {
      const invitation = await client.inviteMember({ email: command.email, role: command.role }, { signal });
      printData(invitation, () => `Invited ${invitation.email} as ${invitation.role} (${invitation.invitation_id}, until ${invitation.expires_at}): they accept with ${VIDGEN} invitations accept ${invitation.invitation_id}, signed in as that address.`);
      return 0;
    }
    case 'revoke': {
      const revoked = await client.revokeInvitation(command.invitationId, { signal });
      printData(revoked, () => `Revoked ${revoked.invitation_id}.`);
      return 0;
    }
    case 'remove': {
      const removed = await client.removeMember(command.holderId, { signal });
      printData(removed, () => `Removed ${command.holderId}: their sessions lose the account within the authorization cache's TTL; the keys they made keep working until revoked.`);
      return 0;
    }
  }
}

/** POST /generate's body from the command line (a local --image or --end-image file is uploaded first). */
async function videoParams(command: GenerateCommand, client: VidgenClient, io: Io): Promise<GenerateVideoParams> {
  const params: GenerateVideoParams = {
    prompt: command.prompt,
    ...(command.model !== undefined && { model: command.model as GenerateVideoParams['model'] }),
    ...(command.duration !== undefined && { duration: command.duration }),
    ...(command.resolution !== undefined && { resolution: command.resolution as GenerateVideoParams['resolution'] }),
    ...(command.aspectRatio !== undefined && {
      aspect_ratio: command.aspectRatio as GenerateVideoParams['aspect_ratio'],
    }),
    ...extrasParams(command),
  };
  if (command.image !== undefined) {
    params.generation_type = 'image_to_video';
    params.image_url = await urlOf(command.image, client, io);
  }
  // Without --image it is sent as given: the API's 400 says end_image_url needs image_to_video.
  if (command.endImage !== undefined) params.end_image_url = await urlOf(command.endImage, client, io);
  return params;
}

/** POST /generate-image's body from the command line (local --ref files are uploaded first). */
async function imageParams(command: ImageCommand, client: VidgenClient, io: Io): Promise<GenerateImageParams> {
  const images: string[] = [];
  for (const ref of command.refs) images.push(await urlOf(ref, client, io));
  return {
    prompt: command.prompt,
    ...(command.model !== undefined && { model: command.model as GenerateImageParams['model'] }),
    ...(command.resolution !== undefined && { resolution: command.resolution as GenerateImageParams['resolution'] }),
    ...(command.aspectRatio !== undefined && {
      aspect_ratio: command.aspectRatio as GenerateImageParams['aspect_ratio'],
    }),
    ...(command.format !== undefined && { output_format: command.format as GenerateImageParams['output_format'] }),
    ...(images.length > 0 && { images }),
    ...extrasParams(command),
  };
}

type ExtrasParams = Pick<GenerateVideoParams, 'seed' | 'negative_prompt' | 'end_user' | 'metadata' | 'output_destination' | 'thumbnail_destination' | 'keep_output'>;

function extrasParams(command: GenerateCommand | ImageCommand): ExtrasParams {
  return {
    ...(command.seed !== undefined && { seed: command.seed }),
    ...(command.negative !== undefined && { negative_prompt: command.negative }),
    ...(command.endUser !== undefined && { end_user: command.endUser }),
    ...(command.metadata !== undefined && { metadata: command.metadata }),
    ...(command.deliverTo !== undefined && {
      output_destination: { url: command.deliverTo.url, ...(Object.keys(command.deliverTo.headers).length > 0 && { headers: command.deliverTo.headers }) },
    }),
    ...(command.thumbnailTo !== undefined && command.deliverTo !== undefined && { thumbnail_destination: thumbnailDestination(command.thumbnailTo, command.deliverTo.headers) }),
    ...(command.keepOutput === false && { keep_output: false }),
  };
}

/**
 * The thumbnail's PUT takes the --deliver-header values too (Azure needs x-ms-blob-type on every
 * blob) but not the content types, which describe the video (a GCS URL signed for video/mp4 would
 * refuse the JPEG's PUT with them).
 */
function thumbnailDestination(url: string, headers: Record<string, string>): NonNullable<GenerateVideoParams['thumbnail_destination']> {
  const kept = Object.entries(headers).filter(([name]) => !['content-type', 'x-ms-blob-content-type'].includes(name.toLowerCase()));
  return { url, ...(kept.length > 0 && { headers: Object.fromEntries(kept) }) };
}

/** A URL as given; a file uploaded first. */
async function urlOf(fileOrUrl: string, client: VidgenClient, io: Io): Promise<string> {
  return isUrl(fileOrUrl) ? fileOrUrl : (await upload(client, fileOrUrl, io)).url;
}

/**
 * Prints the task; with --wait, waits for it first (progress on stderr) and with --out
 * downloads its results. Exit code 1 when the task failed.
 */
async function finish(
  started: Task,
  settings: WaitSettings,
  json: boolean,
  client: VidgenClient,
  io: Io,
  print: (text: string) => void,
): Promise<number> {
  const id = taskId(started);
  let task = started;
  if (settings.wait && task.status === 'processing') {
    const progress = startProgress(io.stderr, id);
    const options = {
      intervalMs: settings.intervalMs,
      timeoutMs: settings.timeoutMs,
      signal: io.signal,
      onProgress: (current: Task) => progress.update(current.status),
    };
    try {
      task = 'video_id' in task ? await client.waitForVideo(id, options) : await client.waitForImage(id, options);
    } catch (error) {
      if (io.signal.aborted) io.stderr.write(`Stopped waiting. ${id} carries on: ${VIDGEN} status ${id} --wait\n`);
      throw error;
    } finally {
      progress.stop();
    }
  }

  if (task.status === 'completed' && settings.out !== undefined) await save(task, settings.out, io);
  print(json ? JSON.stringify(task, null, 2) : formatFields(task));

  if (task.status === 'failed') {
    const error = task.error ?? { code: 'failed', message: 'The task failed.' };
    // The API's failure messages say the refund themselves: say it once.
    const refund = /refunded/i.test(error.message) ? '' : '; its credits were refunded';
    io.stderr.write(`error [${error.code}]: ${error.message} (${id}${refund})\n`);
    return 1;
  }
  if (task.status === 'processing' && !json) io.stderr.write(`Check on it with: ${VIDGEN} status ${id} --wait\n`);
  return 0;
}

/** Downloads every result: FILE, then FILE-2, FILE-3 ... for more than one image. */
async function save(task: Task, out: string, io: Io): Promise<void> {
  const urls = 'video_id' in task ? (task.video_url ? [task.video_url] : []) : (task.image_urls ?? []);
  if (urls.length === 0) throw new DownloadError(`${taskId(task)} is completed but has no result URL to download.`);
  for (const [index, url] of urls.entries()) {
    const file = numberedFile(out, index);
    const bytes = await download(url, file, io.signal);
    io.stderr.write(`saved ${file} (${formatSize(bytes)})\n`);
  }
}

async function upload(client: VidgenClient, file: string, io: Io) {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const uploaded = await client.uploadImage(bytes, {
    filename: path.basename(file),
    contentType: contentTypeOf(file),
    signal: io.signal,
  });
  io.stderr.write(`uploaded ${file} (${formatSize(uploaded.size)}): ${uploaded.url}\n`);
  return uploaded;
}

function taskId(task: Task): string {
  return 'video_id' in task ? task.video_id : task.image_id;
}

function isUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

function contentTypeOf(file: string): string {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.png') return 'image/png';
  if (ext === '.jpg' || ext === '.jpeg') return 'image/jpeg';
  if (ext === '.webp') return 'image/webp';
  return 'application/octet-stream';
}

/**
 * `vidgen events`: one page of endings (with its cursor on stderr), or with --follow every ending
 * from the cursor on, one line each, until Ctrl-C (exit 0). --json prints one event per line.
 */
async function events(
  client: VidgenClient,
  command: Extract<Command, { name: 'events' }>,
  io: Io,
  print: (text: string) => void,
): Promise<number> {
  const line = (event: TaskEvent) => (command.json ? JSON.stringify(event) : formatEvent(event));
  if (!command.follow) {
    const page = await client.listEvents({ ...(command.after && { after: command.after }), ...(command.limit && { limit: command.limit }) }, { signal: io.signal });
    if (command.json) print(JSON.stringify(page, null, 2));
    else for (const event of page.events) print(line(event));
    io.stderr.write(`next: --after ${page.next_after}${page.has_more ? ' (more now)' : ''}\n`);
    return 0;
  }
  let cursor = command.after;
  io.stderr.write('Following your task endings. Ctrl-C to stop.\n');
  for await (const event of client.followEvents({
    ...(cursor && { after: cursor }),
    ...(command.limit && { limit: command.limit }),
    intervalMs: command.intervalMs,
    signal: io.signal,
    onCursor: (next) => (cursor = next),
  })) {
    print(line(event));
  }
  if (cursor) io.stderr.write(`Stopped. Resume with: ${VIDGEN} events --follow --after ${cursor}\n`);
  return 0;
}

function formatEvent(event: TaskEvent): string {
  const data = event.data as { video_id?: string; image_id?: string; video_url?: string; image_urls?: string[]; error?: { code: string } };
  const id = data.video_id ?? data.image_id ?? '';
  const detail = data.error ? data.error.code : (data.video_url ?? data.image_urls?.join(' ') ?? '');
  return `${event.created_at}  ${event.type.padEnd(16)} ${id}  ${detail}`;
}

/**
 * `vidgen webhooks listen`: a receiver on 127.0.0.1, registered as a webhook endpoint for as long
 * as it runs. Each request is verified with the endpoint's secret; one line per event on stdout
 * (the event as JSON with --json). Ctrl-C removes the endpoint.
 */
async function listen(client: VidgenClient, port: number, json: boolean, io: Io, print: (text: string) => void): Promise<number> {
  let secret = '';
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      verifyWebhook(body, request.headers as Record<string, string>, secret).then(
        (event) => {
          const data = event.data as Record<string, unknown>;
          const subject = (data.video_id ?? data.image_id ?? data.webhook_id) as string;
          print(json ? JSON.stringify(event) : `${new Date().toISOString()}  ${event.type.padEnd(16)} ${event.id}  ${subject}${data.status ? ` ${String(data.status)}` : ''}`);
          response.writeHead(200).end();
        },
        (error: unknown) => {
          io.stderr.write(`warning: refused a request that does not verify: ${(error as Error).message}\n`);
          response.writeHead(400).end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  let webhookId: string | undefined;
  try {
    const created = await client.createWebhook({ url, description: 'vidgen webhooks listen' }, { signal: io.signal });
    secret = created.secret;
    webhookId = created.webhook_id;
    io.stderr.write(`Ready: forwarding events to ${url} (webhook ${webhookId}). Ctrl-C to stop.\n`);
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) resolve();
      io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    return 0;
  } finally {
    if (webhookId) {
      await client.deleteWebhook(webhookId).catch(() => undefined);
      io.stderr.write(`Removed webhook ${webhookId}.\n`);
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

