import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Environment } from '../../../../../clients/typescript/src/index.js';
import { ErrorMessage, errorText, Link } from '../../shell/components.js';
import { useMessages, useT } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { billingMessages as messages } from './billing.messages.js';

const STEP = 'send_invoice_reminders';

/** The automation that reminds customers of invoices, as the list answers it (docs/billing.md, "Reminders"). */
interface ReminderAutomation {
  id: string;
  status: 'enabled' | 'disabled';
  trigger: { timezone?: string };
  steps: { action: string; params?: { daysBefore?: number; daysAfter?: number } }[];
}

/**
 * The switch of invoice reminders: the ready-made automation of docs/billing.md ("Reminders"),
 * made by the merchant's days before and after the due date, run each morning at 9 in the
 * browser's time zone; on, it says when it reminds and turns off (disabled, kept); off again, it
 * turns on the one kept. The automation is also on the Automations page, where its schedule and
 * words can change.
 */
export function InvoiceReminders({ environment, onSignedOut }: { environment: Environment; onSignedOut: () => void }) {
  const t = useMessages(messages);
  const words = useT();
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const key = ['automations', environment, 'invoice-reminders'];
  const found = useQuery({
    queryKey: key,
    queryFn: async () => {
      const list = (await withSession(() => sika.get('/api/v1/automations', { params: { query: { limit: 100 } } }), onSignedOut)) as unknown as { data: ReminderAutomation[] };
      return list.data.find((a) => a.steps.some((s) => s.action === STEP)) ?? null;
    },
  });
  const change = useMutation({
    mutationFn: (call: () => Promise<unknown>) => withSession(call, onSignedOut),
    onSuccess: async () => {
      setError(null);
      await queries.invalidateQueries({ queryKey: ['automations', environment] });
    },
    onError: (err) => setError(errorText(err, words('error.generic'))),
  });
  const turnOn = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    const definition = {
      name: t('reminders.name'),
      description: t('reminders.description'),
      trigger: { type: 'schedule', cron: '0 9 * * *', timezone },
      steps: [{ id: 'remind', action: STEP, params: { daysBefore: Number(form.get('daysBefore')), daysAfter: Number(form.get('daysAfter')) } }],
    };
    change.mutate(() => sika.post('/api/v1/automations', { body: definition as never }));
  };
  const automation = found.data;
  const params = automation?.steps.find((s) => s.action === STEP)?.params ?? {};
  return (
    <section aria-labelledby="reminders-title" className="panel">
      <h2 id="reminders-title">{t('reminders.title')}</h2>
      <ErrorMessage text={error} />
      {found.isPending ? null : automation?.status === 'enabled' ? (
        <>
          <p role="status">{t('reminders.on', { before: params.daysBefore ?? 0, after: params.daysAfter ?? 0, zone: automation.trigger.timezone ?? 'UTC' })}</p>
          <div className="actions">
            <button type="button" className="secondary" disabled={change.isPending} onClick={() => change.mutate(() => sika.post('/api/v1/automations/{id}/disable', { params: { path: { id: automation.id } } }))}>
              {t('reminders.turnOff')}
            </button>
            <Link to="automation" id={automation.id}>
              {t('reminders.edit')}
            </Link>
          </div>
        </>
      ) : automation ? (
        <>
          <p role="status">{t('reminders.off')}</p>
          <button type="button" disabled={change.isPending} onClick={() => change.mutate(() => sika.post('/api/v1/automations/{id}/enable', { params: { path: { id: automation.id } } }))}>
            {t('reminders.turnOn')}
          </button>
        </>
      ) : (
        <form className="inline-form" onSubmit={turnOn} aria-label={t('reminders.title')}>
          <p className="help">{t('reminders.help')}</p>
          <label>
            {t('reminders.daysBefore')}
            <input name="daysBefore" type="number" min="1" max="60" step="1" defaultValue="3" required />
          </label>
          <label>
            {t('reminders.daysAfter')}
            <input name="daysAfter" type="number" min="1" max="60" step="1" defaultValue="3" required />
          </label>
          <button type="submit" disabled={change.isPending}>
            {t('reminders.turnOn')}
          </button>
        </form>
      )}
    </section>
  );
}
