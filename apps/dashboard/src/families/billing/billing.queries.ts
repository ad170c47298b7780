import { useQueries, useQuery } from '@tanstack/react-query';
import { retryUnlessNotFound } from '../../shell/components.js';
import { sika, withSession } from '../../shell/session.js';

/** A price as products carry it. */
export interface PriceRow {
  id: string;
  currency: string;
  unit_amount: number;
  recurring?: { interval?: string; interval_count?: number; usage_type?: string } | null;
}

/** The query of one invoice, for its page and for what follows it there (a collection under way). */
export const invoiceQuery = (environment: string, invoiceId: string, onSignedOut: () => void) => ({
  queryKey: ['billing', environment, 'invoice', invoiceId],
  queryFn: () => withSession(() => sika.get('/api/v1/merchant/invoices/{id}', { params: { path: { id: invoiceId } } }), onSignedOut),
  retry: retryUnlessNotFound,
});

/** The query of one customer, for their page and wherever a customer is named by their id. */
export const customerQuery = (environment: string, customerId: string, onSignedOut: () => void) => ({
  queryKey: ['billing', environment, 'customer', customerId],
  queryFn: () => withSession(() => sika.get('/api/v1/merchant/customers/{id}', { params: { path: { id: customerId } } }), onSignedOut),
  retry: retryUnlessNotFound,
});

/** The customers' first page (the newest 100), searched by `search` when given. */
export const customersQuery = (environment: string, search: string, onSignedOut: () => void) => ({
  queryKey: ['billing', environment, 'customers', search],
  queryFn: () => withSession(() => sika.get('/api/v1/merchant/customers', { params: { query: { limit: 100, ...(search ? { search } : {}) } } }), onSignedOut),
});

/** The products with their prices (the first 100). */
export const productsQuery = (environment: string, onSignedOut: () => void) => ({
  queryKey: ['billing', environment, 'products'],
  queryFn: () => withSession(() => sika.get('/api/v1/merchant/products', { params: { query: { limit: 100 } } }), onSignedOut),
});

/**
 * Customers named as the merchant knows them (name, else e-mail, else phone) from their ids, as
 * subscriptions and invoices give them: from the customers' first page, and one by one for those
 * not on it; the id until known.
 */
export function useCustomerNames(environment: string, ids: string[], onSignedOut: () => void): (id: string) => string {
  const firstPage = useQuery(customersQuery(environment, '', onSignedOut));
  const known = new Map((firstPage.data?.data ?? []).map((c) => [c.id, c] as const));
  const others = firstPage.isSuccess ? [...new Set(ids)].filter((id) => !known.has(id)) : [];
  const answers = useQueries({ queries: others.map((id) => customerQuery(environment, id, onSignedOut)) });
  answers.forEach((a, i) => a.data && known.set(others[i]!, a.data));
  return (id) => {
    const c = known.get(id);
    return c?.name ?? c?.email ?? c?.phone ?? id;
  };
}

/** A price's product name (what a subscription is to), from the products' query; undefined until known. */
export function useProductOfPrice(environment: string, onSignedOut: () => void): (priceId: string | null | undefined) => string | undefined {
  const products = useQuery(productsQuery(environment, onSignedOut));
  const byPrice = new Map((products.data?.data ?? []).flatMap((p) => ((p.prices ?? []) as PriceRow[]).map((price) => [price.id, p.name] as const)));
  return (priceId) => (priceId ? byPrice.get(priceId) : undefined);
}

/** What an invoice is for, as the merchant recognises it: its first line's product (a subscription's invoice, whose description only names the subscription's id), else its description, else that line's words. */
export function useInvoiceSubject(environment: string, onSignedOut: () => void): (invoice: { description?: string | null; lines?: { description?: string; price?: string | null }[] }) => string | undefined {
  const productOf = useProductOfPrice(environment, onSignedOut);
  return (invoice) => productOf(invoice.lines?.[0]?.price) ?? invoice.description ?? invoice.lines?.[0]?.description;
}
