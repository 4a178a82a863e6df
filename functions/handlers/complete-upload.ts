import { appContext } from '../app-context';
import { completeDirectUpload } from '../domain/uploads';
import { httpHandler } from '../http/http-handler';
import { pathParameter } from '../http/request';

/** POST /api/v1/uploads/{upload_id}/complete: check a direct upload's bytes and publish it. */
export const handler = httpHandler(async ({ event, principal }) => {
  const { storage, uploadPublications } = appContext();
  return completeDirectUpload({ storage, publications: uploadPublications }, principal.accountId, pathParameter(event, 'upload_id'));
});
