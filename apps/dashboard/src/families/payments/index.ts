import type { DashboardFamily } from '../../shell/family.js';
import { Payment } from './Payment.js';
import { Payments } from './Payments.js';

/** Payments: the list and a payment's page. */
export const payments: DashboardFamily = {
  pages: { payments: Payments, payment: Payment },
  navigation: [{ group: 'money', page: 'payments', label: 'nav.payments', under: ['payment'] }],
};
