import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState, type FormEvent } from 'react';
import { SikaError, type ItemError } from '../../../../../clients/typescript/src/index.js';
import { CopyableId, CursorPager, ErrorMessage, errorText, NavigationContext, QueryView, RowName, Scrollable, useCanWrite, useCursorPages, FilterSelect } from '../../shell/components.js';
import { formatAmount, formatWhen, LanguageContext, useMessages, useT } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { BATCH_STATUSES, batchMessages, useBatchName, type BatchStatus } from './payoutBatches.messages.js';
import type { PageProps } from '../../shell/props.js';

/** A line of the file the API refused: where it is in the file, what it says, and why. */
interface BadLine {
  line: number | null;
  content: string | null;
  field: string | null;
  message: string;
}

/**
 * The records of a CSV text that are not blank, each with the line of the file it starts on, as
 * the API reads them (RFC 4180: a quoted field may hold line ends; LF, CRLF or CR). The API
 * reports a bad instruction by its index; the page shows the line a spreadsheet user can find.
 */
export function csvRecords(text: string): { line: number; text: string }[] {
  const records: { line: number; text: string }[] = [];
  let line = 1;
  let start = 0;
  let startLine = 1;
  let quoted = false;
  const end = (at: number, next: number) => {
    const record = text.slice(start, at);
    if (record.trim() !== '') records.push({ line: startLine, text: record });
    start = next;
    startLine = line;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (c === '\n' || c === '\r') {
      const next = c === '\r' && text[i + 1] === '\n' ? i + 2 : i + 1;
      line++;
      if (!quoted) end(i, next);
      i = next - 1;
    }
  }
  end(text.length, text.length);
  return records;
}

/** The lines of `text` that `errors` name (index 0 is the record after the header). */
function badLines(text: string, errors: ItemError[]): BadLine[] {
  const records = csvRecords(text.replace(/^\uFEFF/, ''));
  return errors.map((e) => {
    const record = e.index === undefined ? undefined : records[e.index + 1];
    return { line: record?.line ?? null, content: record?.text ?? null, field: e.param?.replace(/^instructions\.\d+\.?/, '') || null, message: e.message };
  });
}

/** Payout batches of the environment shown: upload a CSV (each bad line said with its error), and the batches, newest first. */
export function PayoutBatches({ environment, onSignedOut }: PageProps) {
  const t = useMessages(batchMessages);
  const shared = useT();
  const batchName = useBatchName();
  const { language } = useContext(LanguageContext);
  const go = useContext(NavigationContext);
  const queries = useQueryClient();
  const canPayOut = useCanWrite('payouts.write', environment, onSignedOut);
  const [status, setStatus] = useState<BatchStatus | ''>('');
  const pages = useCursorPages(`${environment}:${status}`);
  const [uploading, setUploading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [bad, setBad] = useState<BadLine[]>([]);

  const batches = useQuery({
    queryKey: ['payout-batches', environment, status, pages.after],
    queryFn: () => withSession(() => sika.get('/api/v1/payout-engine/batches', { params: { query: { limit: 20, ...(status ? { status } : {}), ...(pages.after ? { starting_after: pages.after } : {}) } } }), onSignedOut),
  });

  const upload = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const file = new FormData(e.currentTarget).get('file');
    if (!(file instanceof File) || uploading) return;
    setUploading(true);
    setError(null);
    setBad([]);
    const text = await file.text();
    try {
      // One key per upload: the same file sent again after a refusal is checked again, not replayed.
      const batch = await withSession(
        () =>
          sika.post('/api/v1/payout-engine/batches', {
            body: text as never,
            bodySerializer: (body: unknown) => body as string,
            headers: { 'Content-Type': 'text/csv', 'Idempotency-Key': crypto.randomUUID() },
          }),
        onSignedOut,
      );
      void queries.invalidateQueries({ queryKey: ['payout-batches', environment] });
      go('payoutBatch', batch.id);
    } catch (err) {
      if (err instanceof SikaError && err.errors.length > 0) {
        setError(t('invalid', { bad: err.errors.length, all: Math.max(csvRecords(text).length - 1, err.errors.length) }));
        setBad(badLines(text, err.errors));
      } else setError(errorText(err, t('error.generic')));
    } finally {
      setUploading(false);
    }
  };

  return (
    <main className="page">
      <h1>{t('title')}</h1>
      <p>{t('intro')}</p>
      <section aria-labelledby="batch-upload">
        <h2 id="batch-upload">{t('upload')}</h2>
        {canPayOut === false ? (
          <p className="notice">{t('payouts.cannot')}</p>
        ) : (
          <form className="inline-form" onSubmit={(e) => void upload(e)} aria-labelledby="batch-upload">
            <label>
              {t('file')}
              <input name="file" type="file" accept=".csv,text/csv" required aria-describedby="batch-file-help" />
            </label>
            <button type="submit" disabled={uploading}>
              {uploading ? t('checking') : t('check')}
            </button>
          </form>
        )}
        <p id="batch-file-help" className="help">
          {t('fileHelp')}
        </p>
        <ErrorMessage text={error} />
        {bad.length > 0 && (
          <Scrollable labelledBy="batch-bad-lines">
            <table>
              <caption id="batch-bad-lines">{t('badRows')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('row')}</th>
                  <th scope="col">{t('field')}</th>
                  <th scope="col">{t('error')}</th>
                  <th scope="col">{t('content')}</th>
                </tr>
              </thead>
              <tbody>
                {bad.map((b, i) => (
                  <tr key={i}>
                    <th scope="row">{b.line ?? '—'}</th>
                    <td>{b.field ?? '—'}</td>
                    <td>{b.message}</td>
                    <td>
                      <code>{b.content ?? '—'}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scrollable>
        )}
      </section>

      <section aria-labelledby="batch-list">
        <h2 id="batch-list">{t('list')}</h2>
        <FilterSelect label={t('status')} value={status} values={BATCH_STATUSES} any={t('anyStatus')} words={(s) => t(`status.${s}`)} onChange={setStatus} />
        <QueryView query={batches} isEmpty={(d) => !d.data?.length} empty={t('none')}>
          {(list) => (
            <>
              <Scrollable labelledBy="batch-list">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t('batch')}</th>
                      <th scope="col">{t('total')}</th>
                      <th scope="col">{t('status')}</th>
                      <th scope="col">{t('created')}</th>
                      <th scope="col">{shared('object.id')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {(list.data ?? []).map((b) => (
                      <tr key={b.id}>
                        <RowName to="payoutBatch" id={b.id} name={batchName(b.item_count)} />
                        <td className="amount">{formatAmount(language, b.total_amount, b.currency)}</td>
                        <td>
                          <Badge status={b.status}>{t(`status.${b.status}`)}</Badge>
                        </td>
                        <td>{formatWhen(language, b.created)}</td>
                        <td>
                          <CopyableId id={b.id} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </Scrollable>
              <CursorPager pages={pages} label={t('pages')} hasMore={list.has_more === true} lastId={list.data?.at(-1)?.id} />
            </>
          )}
        </QueryView>
      </section>
    </main>
  );
}
