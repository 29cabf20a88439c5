// Deliveries: webhook endpoints, their recent deliveries with attempts, and replay. All reads and
// the replay go through the public API; a refused replay shows the API's message.
import { esc, newIdempotencyKey } from '/console/api.js';

export class Deliveries {
  constructor(api, els) {
    this.api = api;
    this.els = els;
  }

  async refresh() {
    try {
      const [endpoints, deliveries] = await Promise.all([this.api.all('/v1/webhook_endpoints', 100), this.api.get('/v1/webhook_deliveries?limit=50')]);
      this.els.endpoints.innerHTML = endpoints.length
        ? `<table class="compact"><thead><tr><th>id</th><th>url</th><th>status</th><th>event types</th></tr></thead><tbody>${endpoints.map((e) => `<tr data-endpoint="${esc(e.id)}"><td>${esc(e.id)}</td><td>${esc(e.url)}</td><td>${esc(e.status)}</td><td>${esc((e.event_types ?? []).join(', '))}</td></tr>`).join('')}</tbody></table>`
        : '<p class="muted">No webhook endpoints.</p>';
      const rows = deliveries.data;
      this.els.deliveries.innerHTML = rows.length
        ? `<table class="compact"><thead><tr><th>delivery</th><th>event</th><th>attempts</th><th>last status</th><th>state</th><th></th></tr></thead><tbody>${rows.map((d) => `<tr data-delivery="${esc(d.id)}"><td>${esc(d.id)}<br><span class="muted">${esc(d.endpoint_id)}</span></td><td>${esc(d.event_type)}${d.is_test ? ' (test)' : ''}</td><td data-field="attempts">${esc(d.attempts)}</td><td>${esc(d.last_status ?? '')}${d.last_fault ? `<br><span class="muted">${esc(d.last_fault)}</span>` : ''}</td><td>${d.delivered_at ? `delivered ${esc(d.delivered_at)}` : d.failed_at ? `failed ${esc(d.failed_at)}` : d.next_attempt_at ? `next attempt ${esc(d.next_attempt_at)}` : 'in flight'}</td><td><button data-needs="delivery:write" data-replay="${esc(d.id)}">Replay</button> <span data-role="result"></span></td></tr>`).join('')}</tbody></table>`
        : '<p class="muted">No deliveries yet.</p>';
      for (const b of this.els.deliveries.querySelectorAll('button[data-replay]')) {
        b.addEventListener('click', async () => {
          const out = b.parentElement.querySelector('[data-role=result]');
          b.disabled = true;
          b.dataset.ik ??= newIdempotencyKey('replay');
          try {
            const r = await this.api.post(`/v1/webhook_deliveries/${encodeURIComponent(b.dataset.replay)}/replay`, undefined, b.dataset.ik);
            delete b.dataset.ik;
            out.className = 'ok';
            out.textContent = `Replayed: attempts ${r.attempts}.`;
          } catch (e) {
            if (e.status !== undefined) delete b.dataset.ik;
            out.className = 'error';
            out.textContent = e.code ? `${e.message} (${e.code})` : `Not sent: ${e.message}`;
          } finally {
            b.disabled = false;
          }
        });
      }
    } catch (e) {
      this.els.endpoints.innerHTML = `<p class="error">${esc(e.message)}</p>`;
    }
  }
}
