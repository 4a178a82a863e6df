import { checkDestinations, type DestinationUrlPolicy } from './destination-rules';
import { admit, checkReferenceUrls, type Refusal, type StartRequest } from './start-rules';
import type { SpendingKey } from '../accounts/spending-key';
import type { AccountStore } from '../accounts/ports';
import type { ReferenceUrlPolicy } from './ports';
import { requireEndUser } from './attribution';

export interface QuoteDeps {
  accounts: Pick<AccountStore, 'get'>;
  references: ReferenceUrlPolicy;
  destinations: DestinationUrlPolicy;
}

export interface Quote {
  kind: StartRequest['kind'];
  model: string;
  credits: number;
  balance: number;
  /** What a start of the same request would be refused with now; undefined when it would start. */
  refusal?: Refusal;
}

/**
 * The price of a start and whether it would go ahead now (POST /quote): the start's own checks
 * in its order (admission.ts), with nothing charged and no task made. Its reads are the start's
 * before the charge, less the idempotency record: the account. Through a limited key it refuses a
 * price above the limit; the month's spend is judged only by a start's charge (no extra read).
 */
export async function quoteStart(deps: QuoteDeps, partitionId: string, request: StartRequest, key?: SpendingKey): Promise<Quote> {
  requireEndUser(key, request.endUser);
  checkDestinations(deps.destinations, request);
  await checkReferenceUrls(deps.references, request);
  const { account, price, refusal } = await admit(deps.accounts, partitionId, request, key);
  return {
    kind: request.kind,
    model: request.params.model,
    credits: price,
    balance: account.credits,
    ...(refusal && { refusal }),
  };
}
