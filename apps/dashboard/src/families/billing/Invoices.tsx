import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { QueryView, FilterSelect } from '../../shell/components.js';
import { useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { billingMessages as messages, INVOICE_STATUSES } from './billing.messages.js';
import { InvoiceTable } from './billing.tables.js';
import type { PageProps } from '../../shell/props.js';

type Status = (typeof INVOICE_STATUSES)[number];

/** Invoices, newest first, filtered by status, each opening to its page. */
export function Invoices({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const [status, setStatus] = useState<Status | ''>('');
  const list = useQuery({
    queryKey: ['billing', environment, 'invoices', status],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/invoices', { params: { query: { limit: 100, ...(status ? { status } : {}) } } }), onSignedOut),
  });
  return (
    <main className="page">
      <h1 id="invoice-list">{t('invoices.title')}</h1>
      <FilterSelect label={t('filter')} value={status} values={INVOICE_STATUSES} any={t('all')} words={(s) => t(`inv.${s}`)} onChange={setStatus} inline={false} />
      <QueryView query={list} isEmpty={(l) => !l.data?.length} empty={t('invoices.none')}>
        {(l) => <InvoiceTable rows={l.data ?? []} labelledBy="invoice-list" environment={environment} onSignedOut={onSignedOut} />}
      </QueryView>
    </main>
  );
}
