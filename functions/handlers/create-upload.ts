import { appContext } from '../app-context';
import { createDirectUpload } from '../domain/uploads';
import { httpHandler } from '../http/http-handler';

/** POST /api/v1/uploads: a presigned direct upload to storage, for files of any allowed size. */
export const handler = httpHandler(async ({ principal }) => createDirectUpload(appContext().storage, principal.accountId));
