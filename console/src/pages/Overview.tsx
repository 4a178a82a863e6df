import { useQuery } from '@tanstack/react-query';
import { CopyButton, ErrorNotice, Section } from '../components';
import { SpendChart } from '../components/SpendChart';
import { useConsole } from '../context';
import { Link } from '../router';
import { spendPerDay } from '../usage';

/** Pages of transactions read for the chart: 30 days of a busy account fit in a few. */
const CHART_PAGES = 6;

export default function Overview() {
  const { client, mode, config } = useConsole();
  // GET /account answers both balances whatever the mode.
  const account = useQuery({ queryKey: ['account', mode], queryFn: async () => (await client()).getAccount() });
  const spend = useQuery({
    queryKey: ['spend30', mode],
    queryFn: async () => {
      const api = await client();
      const since = Date.now() - 30 * 86_400_000;
      const transactions = [];
      for (let page = 1; page <= CHART_PAGES; page += 1) {
        const answer = await api.listTransactions({ page, limit: 50 });
        transactions.push(...answer.transactions);
        const oldest = answer.transactions.at(-1);
        if (!answer.pagination.has_more || !oldest || Date.parse(oldest.created_at) < since) break;
      }
      return spendPerDay(transactions, new Date());
    },
  });

  const quickStart = [
    `export VIDGEN_API_KEY=vg_${mode}_...   # create one on the API keys page`,
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
              <dd>{account.data.paid_access ? 'Yes' : 'No — needed for images and the newer video models'}</dd>
              <dt>Subscription</dt>
              <dd>{account.data.subscription_status}</dd>
            </dl>
          )}
          <p className="small">
            <Link to="/billing">Buy credits or subscribe</Link>
          </p>
        </Section>
      </div>
      <Section title={`Spend per day, last 30 days (${mode})`}>
        <ErrorNotice error={spend.error} />
        {spend.data ? <SpendChart days={spend.data} /> : <p className="muted">Loading…</p>}
        <p className="small">
          <Link to="/usage">Every transaction</Link>
        </p>
      </Section>
      <Section title="Quick start" actions={<CopyButton text={quickStart} />}>
        <p className="muted small">
          This stack's API: <code>{config.publicApiUrl}</code> · <a href={`${config.publicApiUrl}/docs`}>API reference</a>
        </p>
        <pre>{quickStart}</pre>
      </Section>
    </>
  );
}
