// The checkout page's script: sends the page's actions with its single-use nonce, keeps the page
// up to date while the payment is open, and tells the widget of the merchant's page (its parent,
// at the origin the service checked) how the payment ended. No inline script: the page's
// Content-Security-Policy allows scripts of this service only.
(function () {
  'use strict';
  var main = document.getElementById('checkout');
  if (!main) return;
  var data = main.dataset;
  var parentOrigin = data.parentOrigin || '';
  var framed = window.parent !== window && parentOrigin !== '';
  var live = document.getElementById('live');
  var POLL_MS = 2000;

  function post(message) {
    if (!framed) return;
    message.source = 'sgpg';
    window.parent.postMessage(message, parentOrigin);
  }

  function state() {
    if (!data.outcome) return { type: 'sgpg:ready' };
    var message = { type: 'sgpg:outcome', outcome: data.outcome, status: data.status };
    if (data.detailedStatus) message.detailedStatus = data.detailedStatus;
    return message;
  }

  // The body's own height: the document's scroll height is never less than the frame's, so a
  // page that got shorter (the payment ended) would keep its frame at the taller height.
  function resize() {
    post({ type: 'sgpg:resize', height: document.body.offsetHeight });
  }

  // The widget says hello once the frame has loaded; only its window, at the checked origin, is
  // answered.
  window.addEventListener('message', function (event) {
    if (!framed || event.source !== window.parent || event.origin !== parentOrigin) return;
    if (event.data && event.data.source === 'sgpg' && event.data.type === 'sgpg:hello') {
      post(state());
      resize();
    }
  });
  if (data.outcome) post(state());
  resize();
  window.addEventListener('resize', resize);

  /** Shows the page again as the service now has it, its new stage in focus. */
  function refresh() {
    window.history.replaceState(
      null,
      '',
      window.location.pathname + window.location.search + '#stage',
    );
    window.location.reload();
  }

  if (window.location.hash === '#stage') {
    var title = document.getElementById('stage-title');
    if (title) title.focus();
  }

  function bodyOf(form) {
    var body = { nonce: data.nonce };
    var action = form.getAttribute('data-action');
    if (action === 'pair') {
      var chosen = form.querySelector('input[name="pair"]:checked');
      var parts = chosen ? chosen.value.split('/') : ['', ''];
      body.currencyCode = parts[0];
      body.protocol = parts[1];
    }
    if (action === 'outcome') {
      var outcome = form.querySelector('input[name="outcome"]:checked');
      body.outcome = outcome ? outcome.value : 'paid';
      if (body.outcome === 'failed')
        body.reason = form.querySelector('select[name="reason"]').value;
    }
    return body;
  }

  var busy = false;
  Array.prototype.forEach.call(document.querySelectorAll('form[data-action]'), function (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (busy) return;
      busy = true;
      live.textContent = data.working;
      fetch(data.actions + '/' + form.getAttribute('data-action'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(bodyOf(form)),
        credentials: 'omit',
      })
        .then(function (answer) {
          if (!answer.ok) throw new Error('refused: ' + answer.status);
          refresh();
        })
        .catch(function () {
          busy = false;
          live.textContent = data.actionFailed;
        });
    });
  });

  // While the payment is open (or expired but not yet closed), follow it: the processor's report,
  // or the expiry, may end it at any time.
  if (data.stage !== 'ended') {
    var timer = window.setInterval(function () {
      fetch(data.actions + '/status', { credentials: 'omit', cache: 'no-store' })
        .then(function (answer) {
          return answer.ok ? answer.json() : undefined;
        })
        .then(function (answer) {
          var now = answer && answer.payload && answer.payload[0];
          if (!now || busy) return;
          if (now.stage !== data.stage) {
            window.clearInterval(timer);
            refresh();
          }
        })
        .catch(function () {
          // A missed poll is retried with the next one.
        });
    }, POLL_MS);
  }
})();
