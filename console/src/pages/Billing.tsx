import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Account, Billing as BillingInfo, CheckoutParams } from '#client';
import {
  AFTER_CHECKOUT_READS,
  afterCheckoutDelay,
  billingHistory,
  checkoutOutcome,
  formatMoney,
  latestPurchase,
  parseCheckoutStart,
  purchaseArrived,
  purchaseHistory,
  type CheckoutStart,
  type CheckoutWatch,
  type HistoryLine,
} from '../billing';
import { DataTable, ErrorNotice, formatTime, Loaded, Section, StatusBadge } from '../components';
import { useConsole } from '../context';
import { LEDGER_PAGE_SIZE, ledgerKey, ledgerPage, readLedger } from '../ledger';
import { useAction } from '../queries';
import { Link, useLocation } from '../router';
import { subscriptionLabel } from '../words';

/** Ledger pages read for the history (50 a page): purchases among the latest 500; Usage has every one. */
const HISTORY_PAGES = 10;
/** Where the page notes what checkout is for, to know it when the holder comes back (this tab only). */
const CHECKOUT_KEY = 'vidgen.console.checkout';

/** Buying credit packs and the subscription (live), test credits (test), and what was bought. */
export default function Billing() {
  const { client, mode } = useConsole();
  const { query } = useLocation();
  const returned = query.get('checkout');
  const queries = useQueryClient();
  // Shared with the Overview: the same GET /account in both modes.
  const account = useQuery({ queryKey: ['account'], queryFn: async () => (await client()).getAccount() });
  const billing = useQuery({
    queryKey: ['billing', mode],
    queryFn: async () => {
      const read = await (await client()).getBilling();
      // In live mode GET /billing also says what GET /account says about access: the Overview
      // shows what was just read here (the balances keep their own age: not read, not fresher).
      const known = queries.getQueryState<Account>(['account']);
      if (mode === 'live' && known?.data) {
        const access = { paid_access: read.paid_access, subscription_status: read.subscription_status };
        queries.setQueryData<Account>(['account'], { ...known.data, ...access }, { updatedAt: known.dataUpdatedAt });
      }
      return read;
    },
  });
  // The ledger's shared pages (the Overview's chart has usually just read the newest ones).
  const history = useQuery({
    queryKey: [...ledgerKey(mode), 'history'],
    queryFn: async () => {
      const { transactions, complete } = await readLedger(queries, client, mode, HISTORY_PAGES);
      return { entries: billingHistory(transactions), complete };
    },
  });
  // The newest purchase as checkout begins, from the ledger's first page: a Buy before it has
  // loaded joins the read under way, so the page can still tell when the purchase arrives.
  const latestNow = async () => latestPurchase((await queries.fetchQuery(ledgerPage(client, mode, 1))).transactions);
  // A round after checkout: balance, access and the ledger's first page (a new purchase is the
  // newest entry), three requests however long the ledger; the whole history once it has come.
  const readAgain = async (started: CheckoutStart | undefined) => {
    const [, billingNow, firstPage] = await Promise.all([
      account.refetch(),
      billing.refetch(),
      queries.fetchQuery({ ...ledgerPage(client, mode, 1), staleTime: 0 }).catch(() => undefined),
    ]);
    const arrived = firstPage !== undefined && billingNow.data !== undefined && purchaseArrived(started, firstPage.transactions, billingNow.data.subscription_status);
    if (arrived) await queries.invalidateQueries({ queryKey: ledgerKey(mode) });
    return arrived;
  };
  const { watch, checkAgain } = useCheckoutWatch(returned === 'success', mode, readAgain, (started) =>
    Boolean(history.data && billing.data && purchaseArrived(started, history.data.entries, billing.data.subscription_status)),
  );
  const outcome = checkoutOutcome(returned, watch);

  // Packs and grants are in the ledger; the subscription's payments come with GET /billing: the
  // history waits for both, and either's failure is its error (never a history without payments).
  const lines = {
    data: history.data && billing.data ? { lines: purchaseHistory(history.data.entries, billing.data.subscription_payments), complete: history.data.complete } : undefined,
    error: history.error ?? billing.error,
  };

  return (
    <>
      <h1>Billing</h1>
      {outcome && (
        <div className={`notice ${outcome.kind}`} role="status" data-testid="checkout-outcome">
          {outcome.text}
          {watch === 'gave-up' && (
            <p>
              <button type="button" className="secondary" onClick={checkAgain}>
                Check again
              </button>
            </p>
          )}
        </div>
      )}
      <ErrorNotice error={account.error ?? billing.error} />
      <div className="grid">
        <Section title={mode === 'test' ? 'Test balance' : 'Live balance'}>
          <p className="stat" data-testid="billing-balance">
            {account.data ? account.data[mode].credits : '…'}
          </p>
          <p className="muted small">credits</p>
        </Section>
        <Section title="Access">
          {billing.data && (
            <dl className="facts">
              <dt>Paid access</dt>
              <dd data-testid="paid-access">
                {billing.data.paid_access ? 'Yes' : mode === 'test' ? 'No: a test subscription gives it (below)' : 'No: any purchase or the subscription gives it'}
              </dd>
              <dt>Subscription</dt>
              <dd data-testid="subscription-status">
                <StatusBadge status={billing.data.subscription_status} label={subscriptionLabel(billing.data.subscription_status)} />
              </dd>
            </dl>
          )}
        </Section>
      </div>
      {mode === 'test' ? (
        <div className="grid">
          {billing.data && account.data && <TestSubscription billing={billing.data} liveSubscribed={account.data.paid_access && account.data.subscription_status === 'active'} />}
          <TestCredits />
        </div>
      ) : (
        billing.data && <Purchases billing={billing.data} latest={latestNow} />
      )}
      <Section title="Purchase history">
        <Loaded query={lines}>{(found) => <History {...found} />}</Loaded>
      </Section>
    </>
  );
}

/** Packs bought, credits granted, packs taken back, subscription payments: newest first. */
function History({ lines, complete }: { lines: HistoryLine[]; complete: boolean }) {
  return (
    <>
      {lines.length === 0 && <p className="muted">Nothing bought or granted yet.</p>}
      {lines.length > 0 && (
        <DataTable testId="billing-history" columns={['When', 'What', { label: 'Credits', num: true }, 'Details']}>
          {lines.map((line) => (
            <tr key={line.key} data-type={line.kind}>
              <td>{formatTime(line.at)}</td>
              <td>{line.what}</td>
              <td className="num">{line.credits === null ? '—' : line.credits > 0 ? `+${line.credits}` : line.credits}</td>
              <td>{line.details}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {!complete && (
        <p className="muted small">
          From your latest {HISTORY_PAGES * LEDGER_PAGE_SIZE} transactions; <Link to="/usage">Usage</Link> lists every one.
        </p>
      )}
    </>
  );
}

/**
 * Back from a paid checkout, Stripe's event may trail the holder: read again, further apart each
 * time, until the purchase noted at checkout shows (`arrived`), or for about four minutes.
 * `readAgain` says whether what it read shows the purchase; `checkAgain` is the person's own try.
 */
function useCheckoutWatch(
  paid: boolean,
  mode: CheckoutStart['mode'],
  readAgain: (started: CheckoutStart | undefined) => Promise<boolean>,
  arrived: (started: CheckoutStart | undefined) => boolean,
): { watch: CheckoutWatch; checkAgain: () => void } {
  const [started] = useState(() => parseCheckoutStart(sessionStorage.getItem(CHECKOUT_KEY), mode));
  const [reads, setReads] = useState(0);
  const [readArrival, setReadArrival] = useState(false);
  const seen = paid && (readArrival || arrived(started));
  const watching = paid && !seen && reads < AFTER_CHECKOUT_READS;
  const read = () => readAgain(started).then((found) => setReadArrival((before) => before || found));
  useEffect(() => {
    if (!watching) return undefined;
    const timer = setTimeout(() => void read().then(() => setReads((done) => done + 1)), afterCheckoutDelay(reads));
    return () => clearTimeout(timer);
    // readAgain is new on every render; the schedule is decided by watching and reads alone.
  }, [watching, reads]);
  return { watch: seen ? 'arrived' : watching ? 'waiting' : 'gave-up', checkAgain: () => void read() };
}

/** Checkout and the portal are Stripe's pages: the console sends the holder there and gets them back. */
function useRedirect<T>(open: (choice: T) => Promise<{ url: string }>) {
  return useAction({ mutationFn: open, onSuccess: ({ url }) => window.location.assign(url) });
}

function Purchases({ billing, latest }: { billing: BillingInfo; latest: () => Promise<string | null> }) {
  const { client, mode } = useConsole();
  const checkout = useRedirect(async (choice: CheckoutParams) => {
    // Noted before leaving, so the page knows the purchase when the holder comes back (unknown when the history cannot be read).
    const latestPurchase = await latest().catch(() => undefined);
    if (latestPurchase !== undefined) sessionStorage.setItem(CHECKOUT_KEY, JSON.stringify({ mode, item: 'plan' in choice ? 'plan' : 'pack', latestPurchase } satisfies CheckoutStart));
    else sessionStorage.removeItem(CHECKOUT_KEY);
    return (await client()).createCheckout(choice);
  });
  const portal = useRedirect<void>(async () => (await client()).createBillingPortal());
  const subscribed = billing.subscription_status === 'active' || billing.subscription_status === 'past_due';
  const busy = checkout.isPending || portal.isPending;
  return (
    <>
      <Section title="Credit packs">
        {billing.packs.length === 0 ? (
          <p className="muted">No credit packs are on sale yet.</p>
        ) : (
          <div className="grid" data-testid="packs">
            {billing.packs.map((pack) => {
              const price = formatMoney(pack.amount, pack.currency);
              return (
                <div key={pack.pack_id} className="card pack" data-pack-id={pack.pack_id}>
                  <p className="stat">{pack.credits.toLocaleString()} credits</p>
                  <p>{price}</p>
                  <button type="button" disabled={busy} onClick={() => checkout.run({ pack_id: pack.pack_id })} aria-label={`Buy ${pack.credits} credits for ${price}`}>
                    Buy
                  </button>
                </div>
              );
            })}
          </div>
        )}
        <p className="muted small">Payment is by Stripe; you come back here when it is done. Any purchase also gives paid access.</p>
      </Section>
      <Section title="Subscription">
        {billing.plan ? (
          <p>
            {formatMoney(billing.plan.amount, billing.plan.currency)} every {billing.plan.interval}: paid access and the models marked &quot;subscription required&quot;.
          </p>
        ) : (
          <p className="muted">No subscription plan is offered.</p>
        )}
        {billing.subscription_status === 'past_due' && (
          <div className="notice warn">The last payment failed. Update your payment method under Manage subscription to keep access.</div>
        )}
        <div className="row">
          {billing.plan && !subscribed && (
            <button type="button" disabled={busy} onClick={() => checkout.run({ plan: true })}>
              Subscribe
            </button>
          )}
          <button type="button" className="secondary" disabled={busy} onClick={() => portal.run()}>
            Manage subscription
          </button>
        </div>
        <p className="muted small">Manage subscription opens Stripe&apos;s portal: payment method, invoices, cancelation.</p>
      </Section>
      <ErrorNotice error={checkout.error ?? portal.error} />
    </>
  );
}

function TestCredits() {
  const { client, mode } = useConsole();
  const queries = useQueryClient();
  const add = useAction({
    mutationFn: async () => (await client()).addTestCredits(),
    // A grant: the balance, and the ledger (the history, the chart, Usage).
    onSuccess: () => Promise.all([queries.invalidateQueries({ queryKey: ['account'] }), queries.invalidateQueries({ queryKey: ledgerKey(mode) })]),
  });
  return (
    <Section title="Test credits">
      <p>Test mode never charges anything: credit packs and the subscription are for live mode. Add 1000 test credits whenever you run out.</p>
      <button type="button" disabled={add.isPending} onClick={() => add.run()}>
        Add test credits
      </button>
      <ErrorNotice error={add.error} />
    </Section>
  );
}

/**
 * Test mode has live mode's access rules, so an integration meets live's refusals there; a test
 * subscription (play money) opens images and the subscription models in test mode, and ending it
 * brings the refusals back. Start and End are one action: a double-click sends one request, its
 * second click not even to the End that a quick Start put under the pointer.
 */
function TestSubscription({ billing, liveSubscribed }: { billing: BillingInfo; liveSubscribed: boolean }) {
  const { client, mode } = useConsole();
  const queries = useQueryClient();
  const refresh = async () => {
    // The access shows here and in the playground's price (the Overview's account is live mode's).
    await Promise.all([['billing', mode], ['quote', mode]].map((queryKey) => queries.invalidateQueries({ queryKey })));
  };
  const change = useAction({
    mutationFn: async (on: boolean) => {
      const api = await client();
      return on ? api.startTestSubscription() : api.endTestSubscription();
    },
    onSuccess: refresh,
  });
  const active = billing.subscription_status === 'active';
  return (
    <Section title="Test subscription">
      <p>
        Images and the models marked &quot;subscription required&quot; need paid access and an active subscription, in test mode as in live mode, so your
        integration meets the same refusal (<code>paid_access_required</code>) here. A test subscription gives them in test mode only: it is play money, like
        test credits, and nothing is charged.
      </p>
      {liveSubscribed ? (
        <p data-testid="test-subscription">Your live subscription gives them in test mode too.</p>
      ) : (
        <>
          <p data-testid="test-subscription">{active ? 'On: test mode has every model.' : 'Off: test mode is refused what live mode is refused.'}</p>
          <div className="row">
            {active ? (
              <button type="button" className="secondary" disabled={change.isPending} onClick={() => change.run(false)}>
                End test subscription
              </button>
            ) : (
              <button type="button" disabled={change.isPending} onClick={() => change.run(true)}>
                Start test subscription
              </button>
            )}
          </div>
        </>
      )}
      <ErrorNotice error={change.error} />
    </Section>
  );
}
