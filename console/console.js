// The console's entry: sign-in with a person's session, then the supply map with dispatch, the
// queues (flags, exceptions, payroll runs), the deliveries and the people, each reading and acting
// only through the public API (api.js).
import { Api, esc } from '/console/api.js';
import { MoneyFormat } from '/console/money.js';
import { forgetScopes, offerByScopes, typedScopes } from '/console/scopes.js';
import { SupplyMap } from '/console/supply-map.js';
import { Queues } from '/console/queues.js';
import { Deliveries } from '/console/deliveries.js';
import { People } from '/console/people.js';
import { Dispatch } from '/console/dispatch.js';

const $ = (s) => document.querySelector(s);
const api = new Api();
let views;
/** Made once: its form's listener outlives a sign-out. */
let people;

async function enter() {
  $('#sign-in-view').hidden = true;
  $('#app').hidden = false;
  $('#sign-out').hidden = false;
  const me = api.me;
  $('#who').textContent = `${me.name} <${me.email}>, ${me.organisation}`;
  $('#who').title = `Acting with: ${api.scopes.join(' ')}`;
  $('#who').dataset.scopes = api.scopes.join(' ');
  offerByScopes(api.scopes);
  const money = new MoneyFormat((await api.call('GET', '/v1/currencies', { credential: 'none' })).data);
  views = {
    supply: new SupplyMap(api, { mapBox: $('#map'), settings: $('#map-settings'), legend: $('#legend'), table: $('#workers tbody'), count: $('#worker-count'), filter: $('#worker-filter'), live: $('[data-testid=live-status]'), workOrders: $('#work-orders') }),
    queues: new Queues(api, { flags: $('#flags'), exceptions: $('#exceptions'), runs: $('#runs') }, money),
    deliveries: new Deliveries(api, { endpoints: $('#endpoints'), deliveries: $('#deliveries') }),
    people: (people ??= new People(api, { form: $('#invite'), list: $('#invitations') })),
  };
  views.dispatch = new Dispatch(api, { list: $('#work-orders'), form: $('#open-work-order'), card: $('#worker-card'), assignments: $('#assignments') }, views.supply);
  views.supply.onWorkOrders = () => views.dispatch.render();
  views.supply.onMapClick = (at) => views.dispatch.pick(at);
  views.supply.onWorker = (id) => views.dispatch.card(id);
  views.supply.onBatch = (b) => (b.workers.length || b.work_orders.length) && views.queues.changed(!$('#tab-queues').hidden);
  if (api.can('match:read')) {
    views.supply.start();
    views.dispatch.assignments();
  }
  show(new URLSearchParams(location.search).get('tab') ?? 'supply');
}

/** A tab the person's scopes offer: the one asked for, else the first offered. */
function offered(tab) {
  const shown = (b) => b && getComputedStyle(b).display !== 'none';
  if (shown($(`nav button[data-tab="${tab}"]`))) return tab;
  return [...document.querySelectorAll('nav button')].find(shown)?.dataset.tab ?? tab;
}

function show(asked) {
  const tab = offered(asked);
  for (const b of document.querySelectorAll('nav button')) b.classList.toggle('active', b.dataset.tab === tab);
  for (const s of document.querySelectorAll('.tab')) s.hidden = s.id !== `tab-${tab}`;
  if (tab === 'supply') views.supply.map?.resize();
  if (tab === 'queues') views.queues.refresh();
  views.queues.shown(tab === 'queues');
  if (tab === 'deliveries') views.deliveries.refresh();
  if (tab === 'people') views.people.refresh();
}

function leave(message) {
  views?.supply.stop();
  views?.queues.stop();
  views = undefined;
  forgetScopes();
  // what the person who left was shown goes with them: the next person never sees, nor acts on, a
  // card rendered for another session (their views render afresh on entering)
  for (const s of ['#flags', '#exceptions', '#runs', '#endpoints', '#deliveries', '#invitations', '#work-orders', '#workers tbody', '#legend', '#worker-card', '#assignments']) $(s).replaceChildren();
  $('#open-work-order').hidden = true;
  $('#worker-card').hidden = true;
  $('#app').hidden = true;
  $('#sign-out').hidden = true;
  $('#who').textContent = '';
  $('#sign-in-view').hidden = false;
  $('#sign-in [data-role=error]').textContent = message ?? '';
  $('#accept-invitation [data-role=error]').textContent = '';
  $('#invite [data-role=result]').textContent = '';
}

api.onExpired = () => {
  api.signOut();
  leave('Your session ended; sign in again.');
};

$('#sign-in').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = e.currentTarget;
  const err = f.querySelector('[data-role=error]');
  err.textContent = '';
  try {
    await api.signIn(f.elements.email.value, f.elements.password.value, typedScopes(f.elements.scopes.value));
    f.reset();
    await enter();
  } catch (x) {
    err.innerHTML = esc(x.message);
  }
});
$('#accept-invitation').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = e.currentTarget;
  const err = f.querySelector('[data-role=error]');
  err.textContent = '';
  try {
    await api.acceptInvitation(f.elements.token.value.trim(), f.elements.password.value, f.elements.name.value.trim() || undefined);
    f.reset();
    await enter();
  } catch (x) {
    err.innerHTML = esc(x.message);
  }
});
$('#sign-out').addEventListener('click', async () => {
  await api.signOut();
  leave();
});
for (const b of document.querySelectorAll('nav button')) b.addEventListener('click', () => show(b.dataset.tab));
// from any queue to the map: a worker's card, or the map centred on the worker
for (const q of ['#flags', '#exceptions']) {
  $(q).addEventListener('click', (e) => {
    const b = e.target.closest('button[data-card], button[data-locate]');
    if (!b || !views) return;
    show('supply');
    if (b.dataset.card) views.dispatch.card(b.dataset.card);
    else views.supply.locateWorker(b.dataset.locate);
  });
}
// a short id shows the full one on hover and puts it on the clipboard when clicked or copied
document.addEventListener('click', (e) => {
  const id = e.target.closest?.('[data-copy]')?.dataset.copy;
  if (id) navigator.clipboard?.writeText(id).catch(() => {});
});
document.addEventListener('copy', (e) => {
  const node = document.getSelection()?.anchorNode;
  const id = (node?.nodeType === 1 ? node : node?.parentElement)?.closest?.('[data-copy]')?.dataset.copy;
  if (!id) return;
  e.clipboardData.setData('text/plain', id);
  e.preventDefault();
});
$('[data-action=refresh-queues]').addEventListener('click', () => views.queues.refresh(true));
$('[data-action=refresh-deliveries]').addEventListener('click', () => views.deliveries.refresh());
$('[data-action=refresh-people]').addEventListener('click', () => views.people.refresh());
$('[data-action=refresh-assignments]').addEventListener('click', () => views.dispatch.assignments());

// a tab signed in before the page kept its key's scopes signs in again, so it offers what they allow
if (api.signedIn && !api.creds.scopes) api.signOut();
else if (api.signedIn && api.me) enter().catch((e) => leave(e.message));
