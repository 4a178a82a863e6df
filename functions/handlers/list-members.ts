import { rateLimiter } from '#app-context/rate-limiter';
import { stores } from '#app-context/stores';
import { memberListView } from '#contract/teams';
import { listMembers } from '#domain/accounts/members';
import { accountOfPartition } from '#domain/shared/partition';
import { httpHandler } from '#http/http-handler';
import { spec } from './list-members.spec';

/** GET /api/v1/account/members: the account's members and open invitations (owner, admin). */
export const handler = httpHandler(spec, async ({ principal }) => memberListView(await listMembers(stores().team, accountOfPartition(principal.partitionId))), { rateLimiter });
