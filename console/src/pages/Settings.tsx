import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { ErrorNotice, Loaded, Section } from '../components';
import { useConsole } from '../context';
import { useAction } from '../queries';

/** PATCH /account's bounds for `output_retention_days` (CONTRACT.md, "Retention and deletion"). */
const MIN_DAYS = 1;
const MAX_DAYS = 3650;

/** The account's settings: how long results are kept (both modes share it). */
export default function Settings() {
  const { client } = useConsole();
  const queries = useQueryClient();
  // The same query as the Overview's and Billing's: GET /account.
  const account = useQuery({ queryKey: ['account'], queryFn: async () => (await client()).getAccount() });
  const [keepForGood, setKeepForGood] = useState(true);
  const [days, setDays] = useState('');
  const current = account.data?.output_retention_days;
  // The form starts from what is stored, and again whenever that changes.
  useEffect(() => {
    if (current === undefined) return;
    setKeepForGood(current === null);
    setDays(current === null ? '' : String(current));
  }, [current]);

  const save = useAction({
    mutationFn: async (retention: number | null) => (await client()).updateAccount({ output_retention_days: retention }),
    onSuccess: (changed) => queries.setQueryData(['account'], changed),
  });
  const wanted = keepForGood ? null : Number(days);
  const valid = keepForGood || (Number.isInteger(wanted) && wanted! >= MIN_DAYS && wanted! <= MAX_DAYS);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (valid) save.run(wanted);
  };

  return (
    <>
      <h1>Settings</h1>
      <Section title="Keep results">
        <Loaded query={account}>
          {() => (
            <form className="stack" onSubmit={submit} aria-describedby="retention-help">
              <p id="retention-help" className="muted">
                Videos, thumbnails and images of finished generations are deleted this many days after they complete (within an hour), in live and test mode.
                The generation stays in your history without its files; charges are unchanged. A shorter setting applies to results you already have.
              </p>
              <fieldset className="row">
                <legend>Results are kept</legend>
                <label className="inline">
                  <input type="radio" name="retention" checked={keepForGood} onChange={() => setKeepForGood(true)} /> for good
                </label>
                <label className="inline">
                  <input type="radio" name="retention" checked={!keepForGood} onChange={() => setKeepForGood(false)} /> for a number of days
                </label>
                <label>
                  Days
                  <input
                    type="number"
                    name="retention-days"
                    min={MIN_DAYS}
                    max={MAX_DAYS}
                    step={1}
                    disabled={keepForGood}
                    required={!keepForGood}
                    value={days}
                    onChange={(event) => setDays(event.target.value)}
                  />
                </label>
              </fieldset>
              <button type="submit" disabled={save.isPending || !valid || wanted === current}>
                {save.isPending ? 'Saving…' : 'Save'}
              </button>
              {save.isSuccess && !save.isPending && (
                <p className="notice ok" role="status">
                  {save.data.output_retention_days === null ? 'Results are kept for good.' : `Results are deleted ${save.data.output_retention_days} days after they complete.`}
                </p>
              )}
              <ErrorNotice error={save.error} />
            </form>
          )}
        </Loaded>
      </Section>
    </>
  );
}
