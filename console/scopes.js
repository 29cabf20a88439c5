// What the page offers follows the scopes its credential carries (spec 5.6: module:action; a key
// may carry fewer than its issuer). The page's key is made from the person's session and carries
// the person's scopes, or fewer when they sign in for less (docs/gaps.md#console "Scopes"), and
// the API's answer names them; the page takes them from there, never assumes them. An element
// that needs a scope says so with data-needs="<scope>"; one needing either of two scopes lists
// both in data-needs-any. Hiding is what the page offers; the API refuses anything else (403).

/** Every scope something on the page needs. */
export const PAGE_SCOPES = ['match:read', 'match:write', 'run:read', 'run:write', 'run:approve', 'delivery:read', 'delivery:write', 'iam:read', 'iam:write'];

const STYLE_ID = 'scope-style';

/** Hides what needs a scope not in `held` (rendered now or later: one style rule per scope). */
export function offerByScopes(held) {
  const have = new Set(held);
  let style = document.getElementById(STYLE_ID);
  if (!style) document.head.append((style = Object.assign(document.createElement('style'), { id: STYLE_ID })));
  const missing = PAGE_SCOPES.filter((s) => !have.has(s));
  const rules = missing.map((s) => `[data-needs~="${s}"]`);
  for (const el of document.querySelectorAll('[data-needs-any]')) {
    el.classList.toggle('no-scope', !el.dataset.needsAny.split(/\s+/).some((s) => have.has(s)));
  }
  style.textContent = rules.length ? `${rules.join(', ')}, .no-scope { display: none !important; }` : '.no-scope { display: none !important; }';
}

/** Signed out: nothing is hidden for the next person before their scopes are known. */
export function forgetScopes() {
  document.getElementById(STYLE_ID)?.remove();
  for (const el of document.querySelectorAll('.no-scope')) el.classList.remove('no-scope');
}

/** Scopes a person typed to sign in for ("run:read, run:approve"), or undefined for every scope they hold. */
export function typedScopes(text) {
  const list = String(text ?? '').split(/[\s,]+/).filter(Boolean);
  return list.length ? list : undefined;
}
