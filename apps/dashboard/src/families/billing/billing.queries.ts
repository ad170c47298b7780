import { retryUnlessNotFound } from '../../shell/components.js';
import { sika, withSession } from '../../shell/session.js';

/** The query of one invoice, for its page and for what follows it there (a collection under way). */
export const invoiceQuery = (environment: string, invoiceId: string, onSignedOut: () => void) => ({
  queryKey: ['billing', environment, 'invoice', invoiceId],
  queryFn: () => withSession(() => sika.get('/api/v1/merchant/invoices/{id}', { params: { path: { id: invoiceId } } }), onSignedOut),
  retry: retryUnlessNotFound,
});
