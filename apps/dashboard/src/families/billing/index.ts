import type { DashboardFamily } from '../../shell/family.js';
import { Customer } from './Customer.js';
import { Customers } from './Customers.js';
import { Invoice } from './Invoice.js';
import { Invoices } from './Invoices.js';
import { Products } from './Products.js';
import { Refunds } from './Refunds.js';
import { Subscription } from './Subscription.js';
import { Subscriptions } from './Subscriptions.js';

/** Billing: customers (with the customer portal's settings), products, subscriptions, invoices; the refunds of every payment, under Money. */
export const billing: DashboardFamily = {
  pages: { customers: Customers, customer: Customer, products: Products, subscriptions: Subscriptions, subscription: Subscription, invoices: Invoices, invoice: Invoice, refunds: Refunds },
  navigation: [
    { group: 'money', page: 'refunds', label: 'nav.refunds' },
    { group: 'billing', page: 'customers', label: 'nav.customers', under: ['customer'] },
    { group: 'billing', page: 'products', label: 'nav.products' },
    { group: 'billing', page: 'subscriptions', label: 'nav.subscriptions', under: ['subscription'] },
    { group: 'billing', page: 'invoices', label: 'nav.invoices', under: ['invoice'] },
  ],
};
