import { Link } from './components.js';
import { NAVIGATION_GROUPS, type NavigationEntry } from './family.js';
import { useT } from './i18n.js';
import type { PageName } from './router.js';

/**
 * The main navigation by group, in the groups' order; within a group, the entries in the order given
 * (the families' order, families/index.ts). The sidebar of a wide screen; on a narrow one the header's Menu button shows it (`open`), and
 * following a link hides it again.
 */
export function Navigation({ entries: all, current, open, onFollow }: { entries: NavigationEntry[]; current: PageName; open: boolean; onFollow: () => void }) {
  const t = useT();
  return (
    <nav id="main-nav" className={open ? 'main-nav open' : 'main-nav'} aria-label={t('nav.main')}>
      {NAVIGATION_GROUPS.map((group) => {
        const entries = all.filter((e) => e.group === group);
        if (entries.length === 0) return null;
        const id = `nav-nav-group-${group}`;
        return (
          <div key={group}>
            <p className="nav-group" id={id}>
              {t(`nav.group.${group}`)}
            </p>
            <ul aria-labelledby={id}>
              {entries.map((e) => (
                <li key={e.page}>
                  <Link to={e.page} aria-current={current === e.page || e.under?.includes(current) ? 'page' : undefined} onClick={onFollow}>
                    {t(e.label)}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </nav>
  );
}
