import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { CreditTransaction } from '#client';
import { DataTable, ErrorNotice, formatTime, Loaded, Pager } from '../components';
import { useConsole } from '../context';
import { download } from '../download';
import { LEDGER_PAGE_SIZE, ledgerPage } from '../ledger';
import { useAction } from '../queries';
import { UsageReport } from '../components/UsageReport';
import { transactionsCsv } from '../usage';

export default function Usage() {
  const { client, mode } = useConsole();
  const [page, setPage] = useState(1);
  // The ledger's shared pages: the first is usually the one the Overview's chart has just read.
  const list = useQuery({ ...ledgerPage(client, mode, page), placeholderData: (previous) => previous });
  // Every page, then one file: the export is the whole ledger of this mode.
  const exportCsv = useAction({
    mutationFn: async () => {
      const api = await client();
      const all: CreditTransaction[] = [];
      for (let next = 1; ; next += 1) {
        const answer = await api.listTransactions({ page: next, limit: LEDGER_PAGE_SIZE });
        all.push(...answer.transactions);
        if (!answer.pagination.has_more) break;
      }
      download(transactionsCsv(all), `vidgen-${mode}-transactions-${new Date().toISOString().slice(0, 10)}.csv`);
      return all.length;
    },
  });

  return (
    <>
      <div className="card-head">
        <h1>Usage</h1>
        <button type="button" onClick={() => exportCsv.run()} disabled={exportCsv.isPending}>
          {exportCsv.isPending ? 'Exporting…' : 'Export CSV'}
        </button>
      </div>
      {exportCsv.data !== undefined && <p className="notice ok" role="status">Exported {exportCsv.data} transactions.</p>}
      <ErrorNotice error={exportCsv.error} />
      <UsageReport />
      <h2>Transactions</h2>
      <p className="muted">Every grant, charge and refund of your {mode} balance, newest first. Their sum is the balance.</p>
      <Loaded query={list}>
        {({ transactions }) =>
          transactions.length === 0 ? (
            <p className="muted">No transactions yet.</p>
          ) : (
            <DataTable testId="transactions" columns={['When', 'Type', { label: 'Credits', num: true }, 'Task', 'Reason']}>
              {transactions.map((transaction) => (
                <tr key={transaction.transaction_id}>
                  <td>{formatTime(transaction.created_at)}</td>
                  <td>{transaction.type}</td>
                  <td className="num">{transaction.amount > 0 ? `+${transaction.amount}` : transaction.amount}</td>
                  <td>{transaction.task_id ? <code>{transaction.task_id}</code> : '—'}</td>
                  <td>{transaction.reason ?? '—'}</td>
                </tr>
              ))}
            </DataTable>
          )
        }
      </Loaded>
      <Pager pagination={list.data?.pagination} onPage={setPage} />
    </>
  );
}
