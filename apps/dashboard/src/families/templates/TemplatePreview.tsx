import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { Environment } from '../../../../../clients/typescript/src/index.js';
import { errorText, saveAsFile } from '../../shell/components.js';
import { showHtml } from './htmlPreview.js';
import { useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { templateMessages as messages, type TemplateKind } from './templates.messages.js';

/** What the preview route takes: unsaved content over the latest version, in one locale. */
export interface PreviewRequest {
  locale: string;
  content: {
    variables: Record<string, never>;
    locales: Record<string, { subject?: string; html?: string; text?: string; title?: string }>;
    defaultLocale: string;
    sampleData: Record<string, never> | null;
  };
}

/** How long typing must pause before the preview is asked for again. */
const SETTLE_MS = 400;

/** `value` once it has stopped changing for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * The live preview of what the editor holds (`request`, or `problem` when the editor's JSON does
 * not parse): rendered by the API from the unsaved content once typing pauses, its refusal shown
 * in the API's words. E-mail: subject, the HTML body in a sandboxed frame, the text body; SMS: the
 * text and its length; documents: title and text, and the PDF to download.
 */
export function TemplatePreview({
  environment,
  onSignedOut,
  templateId,
  name,
  kind,
  request,
  problem,
}: {
  environment: Environment;
  onSignedOut: () => void;
  templateId: string;
  name: string;
  kind: TemplateKind;
  request: PreviewRequest | null;
  problem: string | null;
}) {
  const t = useMessages(messages);
  const wanted = useSettled(request === null ? null : JSON.stringify(request), SETTLE_MS);
  const preview = useQuery({
    queryKey: ['templates', environment, 'one', templateId, 'preview', wanted],
    queryFn: () => withSession(() => sika.post('/api/template-engine/templates/{id}/preview', { params: { path: { id: templateId } }, body: JSON.parse(wanted!) as PreviewRequest }), onSignedOut),
    enabled: wanted !== null,
    // A refusal is the answer (a Liquid error in the text): asking again cannot change it.
    retry: false,
    placeholderData: keepPreviousData,
  });
  const rendered = preview.data;
  return (
    <section aria-labelledby="template-preview" className="panel" aria-busy={preview.isFetching}>
      <h2 id="template-preview">{t('preview')}</h2>
      <p className="muted">{t('previewHelp')}</p>
      {problem ? (
        <p className="error" role="alert">
          {problem}
        </p>
      ) : preview.isError ? (
        <p className="error" role="alert">
          {errorText(preview.error, t('error.generic'))}
        </p>
      ) : !rendered ? (
        <p>{t('previewWaiting')}</p>
      ) : kind === 'email' ? (
        <>
          <dl className="facts">
            <dt>{t('previewSubject')}</dt>
            <dd>{rendered.subject}</dd>
          </dl>
          {rendered.html !== undefined && (
            <>
              <HtmlFrame html={rendered.html} title={t('previewFrame')} />
              <p className="muted">{t('previewImages')}</p>
            </>
          )}
          <h3>{t('previewText')}</h3>
          <pre className="rendered">{rendered.text}</pre>
        </>
      ) : kind === 'sms' ? (
        <>
          <pre className="rendered">{rendered.text}</pre>
          <p>{t('previewLength', { count: [...rendered.text].length })}</p>
        </>
      ) : (
        <>
          <h3 className="rendered-title">{rendered.title}</h3>
          <pre className="rendered">{rendered.text}</pre>
          {rendered.pdf && (
            <button type="button" className="secondary" onClick={() => saveAsFile(pdfBlob(rendered.pdf!), `${name}.pdf`)}>
              {t('previewPdf')}
            </button>
          )}
        </>
      )}
    </section>
  );
}

/** The PDF the API answers in base64, as a file. */
function pdfBlob(base64: string): Blob {
  return new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], { type: 'application/pdf' });
}

/** An e-mail's HTML in a frame that runs nothing (htmlPreview.ts says how it is shown under the dashboard's policy). */
function HtmlFrame({ html, title }: { html: string; title: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  useEffect(() => {
    if (frame.current) showHtml(frame.current, html);
  }, [html]);
  return <iframe ref={frame} sandbox="allow-same-origin" title={title} className="email-frame" />;
}
