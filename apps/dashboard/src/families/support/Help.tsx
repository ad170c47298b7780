import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { CopyButton, ErrorMessage, QueryView, useAction } from '../../shell/components.js';
import { useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { CATEGORIES, helpMessages, type Category } from './help.messages.js';

/** The contact form of support (docs/support.md): one ticket per reviewed message, however often it is sent. */
export function Help({ environment, onSignedOut }: PageProps) {
  const t = useMessages(helpMessages);
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  const [ticket, setTicket] = useState<{ id: string; email: string } | null>(null);
  const me = useQuery({ queryKey: ['me', environment], queryFn: () => withSession(() => sika.get('/api/v1/auth/me'), onSignedOut) });
  const { action: send, error } = useAction(onSignedOut, []);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    setTicket(null);
    send.mutate(async () => {
      const sent = await sika.post('/api/v1/support/intake/contact', {
        body: {
          name: text('name'),
          email: text('email'),
          subject: text('subject'),
          message: text('message'),
          category: text('category') as Category,
          page: window.location.pathname,
          ...(text('related') ? { relatedObject: text('related') } : {}),
        },
        headers: { 'Idempotency-Key': idempotencyKey },
      });
      setTicket({ id: sent.id!, email: sent.email! });
      setIdempotencyKey(crypto.randomUUID());
      form.reset();
    });
  };
  return (
    <main className="page">
      <h1>{t('title')}</h1>
      <p>{t('intro')}</p>
      {ticket && (
        <p role="status">
          {t('sent', { id: ticket.id, email: ticket.email })} <CopyButton text={ticket.id} />
        </p>
      )}
      <ErrorMessage text={error} />
      <QueryView query={me}>
        {(user) => (
          <form className="inline-form" onSubmit={submit} aria-label={t('title')} onChange={() => setIdempotencyKey(crypto.randomUUID())}>
            <label>
              {t('name')}
              <input name="name" defaultValue={user.name} required maxLength={200} autoComplete="name" />
            </label>
            <label>
              {t('email')}
              <input name="email" type="email" defaultValue={user.email} required maxLength={254} autoComplete="email" />
            </label>
            <label>
              {t('category')}
              <select name="category" defaultValue="other">
                {CATEGORIES.map((c) => (
                  <option key={c} value={c}>
                    {t(`category.${c}`)}
                  </option>
                ))}
              </select>
            </label>
            <label>
              {t('subject')}
              <input name="subject" required maxLength={200} />
            </label>
            <label className="wide">
              {t('message')}
              <textarea name="message" required maxLength={10000} rows={6} />
            </label>
            <label>
              {t('related')}
              <input name="related" maxLength={255} aria-describedby="help-related" />
            </label>
            <p id="help-related" className="help">
              {t('relatedHelp')}
            </p>
            <button type="submit" disabled={send.isPending}>
              {t('send')}
            </button>
          </form>
        )}
      </QueryView>
    </main>
  );
}
