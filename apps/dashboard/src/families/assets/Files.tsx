import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useRef, useState, type FormEvent } from 'react';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { CursorPager, ErrorMessage, errorText, QueryView, Scrollable, useCursorPages } from '../../shell/components.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, uploadWithProgress, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { fileMessages } from './files.messages.js';

const PURPOSES = ['logo', 'onboarding_document', 'invoice_attachment'] as const;
type Purpose = (typeof PURPOSES)[number];

type Asset = Answer<'get', '/api/v1/assets'>['data'][number];

type Step = 'hashing' | 'declaring' | 'uploading' | 'checking';

async function sha256Hex(file: Blob): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Files of the environment shown (logos, onboarding documents, invoice attachments): upload with progress, download, delete. */
export function Files({ environment, onSignedOut }: PageProps) {
  const t = useMessages(fileMessages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const [step, setStep] = useState<Step | null>(null);
  const [sent, setSent] = useState({ bytes: 0, total: 1 });
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const pages = useCursorPages(environment);
  const form = useRef<HTMLFormElement>(null);
  const after = pages.after;
  const assets = useQuery({
    queryKey: ['assets', environment, after],
    queryFn: () => withSession(() => sika.get('/api/v1/assets', { params: { query: { limit: 20, ...(after ? { starting_after: after } : {}) } } }), onSignedOut),
  });
  const refresh = () => void queries.invalidateQueries({ queryKey: ['assets', environment] });

  /** Declare, upload (with progress), complete: the service checks size, SHA-256 and type. */
  const upload = useMutation({
    mutationFn: async ({ file, purpose }: { file: File; purpose: Purpose }) => {
      setStep('hashing');
      const sha256 = await sha256Hex(file);
      setStep('declaring');
      const asset = await withSession(() => sika.post('/api/v1/assets', { body: { name: file.name, purpose, contentType: file.type || 'application/octet-stream', size: file.size, sha256 } }), onSignedOut);
      setStep('uploading');
      setSent({ bytes: 0, total: file.size });
      await withSession(() => uploadWithProgress(`/api/v1/assets/${encodeURIComponent(asset.id)}/content`, file, (bytes, total) => setSent({ bytes, total })), onSignedOut);
      setStep('checking');
      await withSession(() => sika.post('/api/v1/assets/{assetId}/complete', { params: { path: { assetId: asset.id } } }), onSignedOut);
      return file.name;
    },
    onSuccess: (name) => {
      setDone(name);
      form.current?.reset();
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
    onSettled: () => {
      setStep(null);
      pages.reset();
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => sika.delete('/api/v1/assets/{assetId}', { params: { path: { assetId: id } } }),
    onSuccess: refresh,
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });
  /** A signed download URL of this service, followed on this page's own origin (the dashboard is served by the service). */
  const download = async (asset: Asset) => {
    setError(null);
    try {
      const signed = await withSession(() => sika.post('/api/v1/assets/{assetId}/download-url', { params: { path: { assetId: asset.id } } }), onSignedOut);
      const url = new URL(signed.url);
      const a = document.createElement('a');
      a.href = `${url.pathname}${url.search}`;
      a.download = asset.name;
      a.click();
    } catch (err) {
      setError(errorText(err, t('error.generic')));
    }
  };

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    const data = new FormData(e.currentTarget);
    const file = data.get('file');
    if (!(file instanceof File) || file.size === 0) return;
    upload.mutate({ file, purpose: data.get('purpose') as Purpose });
  };
  const size = (bytes: number) => new Intl.NumberFormat(language, { style: 'unit', unit: bytes >= 1_048_576 ? 'megabyte' : 'kilobyte', maximumFractionDigits: 1 }).format(bytes >= 1_048_576 ? bytes / 1_048_576 : bytes / 1024);

  return (
    <main className="page">
      <h1>{t('title')}</h1>
      <section aria-labelledby="upload">
        <h2 id="upload">{t('upload')}</h2>
        <ErrorMessage text={error} />
        {done && (
          <p className="panel" role="status">
            {t('uploaded', { name: done })}
          </p>
        )}
        <form ref={form} className="inline-form" onSubmit={submit} aria-label={t('upload')}>
          <label>
            {t('file')}
            <input name="file" type="file" required />
          </label>
          <label>
            {t('purpose')}
            <select name="purpose" defaultValue="logo">
              {PURPOSES.map((p) => (
                <option key={p} value={p}>
                  {t(`purpose.${p}`)}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={upload.isPending}>
            {t('send')}
          </button>
        </form>
        {step && (
          <div className="panel" aria-live="polite">
            <label>
              {t(`step.${step}`)}
              <progress max={sent.total} value={step === 'uploading' || step === 'checking' ? sent.bytes : undefined} aria-label={t('progress')} />
            </label>
          </div>
        )}
      </section>

      <section aria-labelledby="files">
        <h2 id="files">{t('list')}</h2>
        <QueryView query={assets} isEmpty={(a) => !a.data?.length} empty={t('none')}>
          {(list) => (
            <>
              <Scrollable labelledBy="files">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t('name')}</th>
                      <th scope="col">{t('purpose')}</th>
                      <th scope="col">{t('size')}</th>
                      <th scope="col">{t('status')}</th>
                      <th scope="col">{t('created')}</th>
                      <th scope="col">{t('actions')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {(list.data ?? []).map((a) => (
                      <tr key={a.id}>
                        <th scope="row">{a.name}</th>
                        <td>{t(`purpose.${a.purpose}`)}</td>
                        <td>{size(a.size)}</td>
                        <td>
                          <Badge status={a.status}>{t(`status.${a.status}`)}</Badge>
                        </td>
                        <td>{formatWhen(language, a.createdAt, 'date')}</td>
                        <td className="actions">
                          {a.status === 'ready' && (
                            <button type="button" className="secondary" aria-label={`${t('download')}: ${a.name}`} onClick={() => void download(a)}>
                              {t('download')}
                            </button>
                          )}
                          <button type="button" className="secondary" aria-label={`${t('delete')}: ${a.name}`} disabled={remove.isPending} onClick={() => window.confirm(t('confirmDelete', { name: a.name })) && remove.mutate(a.id)}>
                            {t('delete')}
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </Scrollable>
              <CursorPager pages={pages} label={t('pages')} hasMore={list.has_more ?? false} lastId={list.data?.at(-1)?.id as string | undefined} />
            </>
          )}
        </QueryView>
      </section>
    </main>
  );
}
