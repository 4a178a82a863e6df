import { useQuery, useQueryClient } from '@tanstack/react-query';
import { CopyButton, ErrorNotice, FocusedNotice, Loaded, Section } from '../components';
import { SpendChart } from '../components/SpendChart';
import { useConsole } from '../context';
import { ledgerKey, readLedger } from '../ledger';
import { useAction } from '../queries';
import { Link } from '../router';
import { spendPerDay } from '../usage';
import { subscriptionLabel } from '../words';

/** Pages of transactions read for the chart: 30 days of a busy account fit in a few. */
const CHART_PAGES = 6;

export default function Overview() {
  const { client, mode, config } = useConsole();
  const queries = useQueryClient();
  // GET /account answers both balances whatever the mode: one query for both (Billing shares it).
  const account = useQuery({ queryKey: ['account'], queryFn: async () => (await client()).getAccount() });
  // The ledger's newest pages until 30 days back, shared with Usage and Billing (ledger.ts).
  const spend = useQuery({
    queryKey: [...ledgerKey(mode), 'spend30'],
    queryFn: async () => {
      const since = Date.now() - 30 * 86_400_000;
      const { transactions } = await readLedger(queries, client, mode, CHART_PAGES, (page) => {
        const oldest = page.transactions.at(-1);
        return !oldest || Date.parse(oldest.created_at) < since;
      });
      return spendPerDay(transactions, new Date());
    },
  });

  // The first run uses a test key: a new holder has test credits, not live ones (docs/decisions.md).
  const quickKey = useAction({ mutationFn: async () => (await client()).createKey({ name: 'Quick start', mode: 'test' }) });
  const quickStart = [
    '# A test key: test credits and the simulated provider; nothing is charged.',
    `export VIDGEN_API_KEY=${quickKey.data?.api_key ?? 'vg_test_...   # "Create a test key" above, or one from the API keys page'}`,
    `curl -s -X POST ${config.publicApiUrl}/generate \\`,
    '  -H "Authorization: Bearer $VIDGEN_API_KEY" -H "Content-Type: application/json" \\',
    `  -d '{"prompt": "a lighthouse at dawn, waves crashing", "duration": 5}'`,
    `curl -s ${config.publicApiUrl}/videos -H "Authorization: Bearer $VIDGEN_API_KEY"`,
  ].join('\n');

  return (
    <>
      <h1>Overview</h1>
      <div className="grid">
        <Section title="Live balance">
          <ErrorNotice error={account.error} />
          <p className="stat" data-testid="live-credits">{account.data ? account.data.live.credits : '…'}</p>
          <p className="muted small">credits for real generations</p>
        </Section>
        <Section title="Test balance">
          <p className="stat" data-testid="test-credits">{account.data ? account.data.test.credits : '…'}</p>
          <p className="muted small">credits for test mode (simulated provider)</p>
        </Section>
        <Section title="Access">
          {account.data && (
            <dl className="facts">
              <dt>Signed in as</dt>
              <dd>{account.data.email}</dd>
              <dt>Paid access</dt>
              <dd>{account.data.paid_access ? 'Yes' : 'No: images and the subscription models need it (in test mode, a test subscription on Billing gives it)'}</dd>
              <dt>Subscription</dt>
              <dd>{subscriptionLabel(account.data.subscription_status)}</dd>
            </dl>
          )}
          <p className="small">
            <Link to="/billing">Buy credits or subscribe</Link>
          </p>
        </Section>
      </div>
      <Section title={`Spend per day, last 30 days (${mode})`}>
        <Loaded query={spend}>{(days) => <SpendChart days={days} />}</Loaded>
        <p className="small">
          <Link to="/usage">Every transaction</Link>
        </p>
      </Section>
      <Section title="Quick start" actions={<CopyButton text={quickStart} />}>
        <p>
          Your first video from a terminal, on your free test credits: a test key runs on the simulated provider and never touches your live balance.
        </p>
        {quickKey.data ? (
          <FocusedNotice key={quickKey.data.key_id} testId="quick-start-key">
            Your test key “Quick start” is in the commands below. This is the only time it is shown; it is listed on the <Link to="/keys">API keys</Link> page, where
            you can revoke it.
          </FocusedNotice>
        ) : (
          <p>
            <button type="button" disabled={quickKey.isPending} onClick={() => quickKey.run()}>
              Create a test key
            </button>
          </p>
        )}
        <ErrorNotice error={quickKey.error} />
        <pre data-testid="quick-start">{quickStart}</pre>
        <p className="muted small">
          For real videos, use a live key (<code>vg_live_</code>): its runs need live credits from <Link to="/billing">Billing</Link>. This stack&apos;s API:{' '}
          <code>{config.publicApiUrl}</code> · <a href={`${config.publicApiUrl}/docs`}>API reference</a>
        </p>
      </Section>
    </>
  );
}
