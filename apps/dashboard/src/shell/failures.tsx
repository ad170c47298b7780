import { useContext, type ReactNode } from 'react';
import { Badge } from './Badge.js';
import { failureReasonWords, subjectFailureReasonWords, type FailureSubject } from './failures.messages.js';
import { LanguageContext, type Language } from './i18n.js';

/** A failure's words in `language`: the table's for a known code, else the API's message, else the code itself. */
export function failureWords(language: Language, subject: FailureSubject, code: string | null | undefined, message: string | null | undefined): string | null {
  const known = code ? (subjectFailureReasonWords[subject]?.[code] ?? failureReasonWords[code]) : undefined;
  return known?.[language] ?? message ?? code ?? null;
}

/** Why something failed, in words then its code (`—` when the API gave neither): the lists and pages of payments, payouts and refunds. */
export function FailureReason({ subject, code, message }: { subject: FailureSubject; code: string | null | undefined; message?: string | null | undefined }) {
  const { language } = useContext(LanguageContext);
  const words = failureWords(language, subject, code, message);
  if (!words) return <>—</>;
  return (
    <span className="reason">
      {words}
      {code && words !== code && (
        <>
          {' '}
          <code className="code">{code}</code>
        </>
      )}
    </span>
  );
}

/**
 * A list's status cell (payments, payouts, refunds): the status as a badge in words, `extra` beside
 * it (a delay), and under a failed one why it failed.
 */
export function StatusCell({ status, word, failure, extra }: { status: string; word: string; failure?: { subject: FailureSubject; code: string | null | undefined; message?: string | null | undefined } | false | null; extra?: ReactNode }) {
  return (
    <td data-card="status">
      <Badge status={status}>{word}</Badge>
      {extra}
      {failure && (
        <span className="reason-line">
          <FailureReason subject={failure.subject} code={failure.code} message={failure.message} />
        </span>
      )}
    </td>
  );
}
