import { useQuery } from '@tanstack/react-query';
import { CopyButton, ErrorNotice, Section } from '../components';
import { SpendChart } from '../components/SpendChart';
import { useConsole, type Mode } from '../context';
import { Link } from '../router';
import { spendPerDay } from '../usage';

/** Pages of transactions read for the chart: 30 days of a busy account fit in a few. */
const CHART_PAGES = 6;

export default function Overview() {
  const { clientIn, client, mode, config } = useConsole();
  const balance = (of: Mode) =>
    useQuery({ queryKey: ['credits', of], queryFn: async () => (await clientIn(of)).getCredits() });
  const live = balance('live');
  const test = balance('test');
  const current = mode === 'live' ? live : test;
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
          <ErrorNotice error={live.error} />
          <p className="stat" data-testid="live-credits">{live.data ? live.data.credits : '…'}</p>
          <p className="muted small">credits for real generations</p>
        </Section>
        <Section title="Test balance">
          <ErrorNotice error={test.error} />
          <p className="stat" data-testid="test-credits">{test.data ? test.data.credits : '…'}</p>
          <p className="muted small">credits for test mode (simulated provider)</p>
        </Section>
        <Section title="Access">
          {current.data && (
            <dl className="facts">
              <dt>Paid access</dt>
              <dd>{current.data.paid_access ? 'Yes' : 'No — needed for images and the newer video models'}</dd>
              <dt>Subscription</dt>
              <dd>{current.data.subscription_status}</dd>
            </dl>
          )}
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
