import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Answer, Environment } from '../../../../../clients/typescript/src/index.js';
import { CopyButton, errorText } from '../../shell/components.js';
import { useMessages } from '../../shell/i18n.js';
import { sika } from '../../shell/session.js';
import { webhookMessages } from './webhooks.messages.js';

/** A webhook endpoint as the API answers it (no secret but on creation and rotation). */
export type WebhookEndpoint = Answer<'get', '/api/v1/webhook-endpoints/{id}'>;

/** A signing secret just made (created or rotated): shown once, with a copy button. */
export interface ShownSecret {
  url: string;
  secret: string;
  rotated: boolean;
}

export function SecretPanel({ shown, onDone }: { shown: ShownSecret; onDone: () => void }) {
  const t = useMessages(webhookMessages);
  return (
    <div className="panel secret" role="status">
      <p>
        {t('secretOnce')} <strong>{shown.url}</strong>
      </p>
      <code>{shown.secret}</code>
      {shown.rotated && <p>{t('secretRotated')}</p>}
      <div className="actions">
        <CopyButton text={shown.secret} label={`${t('action.copy')}: ${t('secret')}`} />
        <button type="button" className="secondary" onClick={onDone}>
          {t('action.done')}
        </button>
      </div>
    </div>
  );
}

/**
 * Enable/disable, rotate and delete (once confirmed), for both pages: after each, the
 * environment's endpoint queries are read again; a rotation's new secret goes to `onSecret`, a
 * refusal to `onError`; `onDeleted` follows a deletion.
 */
export function useEndpointActions(environment: Environment, onSecret: (s: ShownSecret) => void, onError: (text: string | null) => void, onDeleted?: () => void) {
  const t = useMessages(webhookMessages);
  const queries = useQueryClient();
  const [pending, setPending] = useState(false);
  const run = useMutation({
    mutationFn: async (work: () => Promise<void>) => {
      onError(null);
      setPending(true);
      try {
        await work();
      } finally {
        setPending(false);
      }
    },
    onSuccess: () => void queries.invalidateQueries({ queryKey: ['webhook-endpoints', environment] }),
    onError: (err) => onError(errorText(err, t('error.generic'))),
  });
  return {
    pending: pending || run.isPending,
    setEnabled: (endpoint: WebhookEndpoint, enabled: boolean) =>
      run.mutate(async () => {
        await sika.post('/api/v1/webhook-endpoints/{id}', { params: { path: { id: endpoint.id } }, body: { enabled } });
      }),
    rotate: (endpoint: WebhookEndpoint) =>
      run.mutate(async () => {
        const rotated = (await sika.post('/api/v1/webhook-endpoints/{id}/rotate_secret', { params: { path: { id: endpoint.id } } })) as { secret: string };
        onSecret({ url: endpoint.url, secret: rotated.secret, rotated: true });
      }),
    remove: (endpoint: WebhookEndpoint) => {
      if (!window.confirm(t('deleteConfirm', { url: endpoint.url }))) return;
      run.mutate(async () => {
        await sika.delete('/api/v1/webhook-endpoints/{id}', { params: { path: { id: endpoint.id } } });
        onDeleted?.();
      });
    },
  };
}
