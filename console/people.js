// People: invite a person by email (POST /v1/invitations; docs/gaps.md#accounts) and see the
// invitations. The platform sends no email: the token is shown here once, for the inviter to pass
// on; the invitee joins from the sign-in page with it and a password of their own.
import { esc, newIdempotencyKey } from '/console/api.js';

export class People {
  constructor(api, els) {
    this.api = api;
    this.els = els;
    els.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.invite();
    });
  }

  async invite() {
    const f = this.els.form;
    const out = f.querySelector('[data-role=result]');
    const button = f.querySelector('button[type=submit]');
    // one Idempotency-Key per invitation: a retry after a lost answer never invites twice
    f.dataset.ik ??= newIdempotencyKey('invite');
    button.disabled = true;
    try {
      const inv = await this.api.invite(f.elements.email.value, f.elements.name.value, f.dataset.ik);
      delete f.dataset.ik;
      out.className = 'ok';
      out.innerHTML = `Invited ${esc(inv.email)} until ${esc(inv.expires_at)}. Pass them this token (shown once): <code data-role="token">${esc(inv.token)}</code>`;
      f.reset();
      await this.refresh();
    } catch (e) {
      if (e.status !== undefined) delete f.dataset.ik;
      out.className = 'error';
      out.textContent = e.code ? `${e.message} (${e.code})` : `Not sent: ${e.message}`;
    } finally {
      button.disabled = false;
    }
  }

  async refresh() {
    try {
      const list = await this.api.all('/v1/invitations', 200);
      this.els.list.innerHTML = list.length
        ? `<table class="compact"><thead><tr><th>email</th><th>name</th><th>status</th><th>expires</th><th>invited by</th></tr></thead><tbody>${list.map((i) => `<tr data-invitation="${esc(i.id)}" data-status="${esc(i.status)}"><td>${esc(i.email)}</td><td>${esc(i.name)}</td><td>${esc(i.status)}${i.accepted_at ? ` ${esc(i.accepted_at)}` : ''}</td><td>${esc(i.expires_at)}</td><td class="muted">${esc(i.invited_by ?? '')}</td></tr>`).join('')}</tbody></table>`
        : '<p class="muted">No invitations yet.</p>';
    } catch (e) {
      this.els.list.innerHTML = `<p class="error">${esc(e.message)}</p>`;
    }
  }
}
