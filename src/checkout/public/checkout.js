// The checkout page's script: sends the page's actions with its single-use nonce, keeps the page
// up to date while the payment is open (the transfer's progress, the quote's countdown), copies
// the amount and the address, and tells the widget of the merchant's page (its parent, at the
// origin the service checked) how the payment ended. No inline script: the page's
// Content-Security-Policy allows scripts of this service only. Without it the page still shows
// what to send where, and a link to reload it.
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
  // The page's height changes as it follows the payment (the progress, the countdown, a note):
  // the widget's frame follows it.
  if (window.ResizeObserver) new window.ResizeObserver(resize).observe(document.body);

  /**
   * Tells the widget how the payment ended, when the service's answer says it did: the page
   * loaded again afterwards is a spent token's, which tells the widget only that it is unavailable
   * (and which the widget, already told, ignores).
   */
  function announce(now) {
    if (!now || now.stage !== 'ended' || !now.outcome) return;
    var message = { type: 'sgpg:outcome', outcome: now.outcome, status: now.status };
    if (now.detailedStatus) message.detailedStatus = now.detailedStatus;
    post(message);
  }

  /** The one state in the service's answer to an action or a poll, if it is one. */
  function stateIn(answer) {
    return answer && answer.payload && answer.payload[0];
  }

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
    if (action === 'deposit') {
      body.amount = form.querySelector('input[name="amount"]').value;
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
          return answer.json().then(
            function (body) {
              announce(stateIn(body));
            },
            function () {
              // An answer that is not the state: the page loaded again shows where it stands.
            },
          );
        })
        .then(refresh)
        .catch(function () {
          busy = false;
          live.textContent = data.actionFailed;
        });
    });
  });

  // The payment step: what to send where, the quote's countdown and the transfer's progress.
  var payment = document.querySelector('.payment');
  var step = payment ? payment.dataset : undefined;
  var progress = document.getElementById('progress');
  var quoteLeft = document.getElementById('quote-left');
  var quoteNote = document.getElementById('quote-note');
  var quoteEnds = step ? Date.now() + Number(step.quoteSeconds) * 1000 : 0;

  function fillIn(message, values) {
    return message.replace(/\{(\w+)\}/g, function (place, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : place;
    });
  }

  function progressText(now) {
    var p = now.progress;
    var values = {
      n: p.confirmations || 0,
      required: now.confirmationsRequired,
      received: p.received.amount,
      remaining: p.remaining.amount,
      asset: now.assetCode,
    };
    if (p.state === 'seen') return fillIn(step.progressSeen, values);
    if (p.state === 'underpaid') return fillIn(step.progressUnderpaid, values);
    if (p.state === 'paid') return step.progressPaid;
    return step.progressWaiting;
  }

  function setText(element, text) {
    if (element && element.textContent !== text) element.textContent = text;
  }

  function showNote(text) {
    if (!quoteNote) return;
    setText(quoteNote, text);
    quoteNote.hidden = text === '';
  }

  var locked = step !== undefined && step.locked === 'true';
  var renewing = false;
  function tick() {
    if (!step || locked) {
      setText(quoteLeft, '');
      return;
    }
    var left = Math.max(0, Math.round((quoteEnds - Date.now()) / 1000));
    var minutes = Math.floor(left / 60);
    var seconds = left % 60;
    setText(
      quoteLeft,
      ' (' +
        fillIn(step.quoteLeft, { time: minutes + ':' + (seconds < 10 ? '0' : '') + seconds }) +
        ')',
    );
    // The quote ended: ask at once; the service renews it (same address) if it can.
    if (left === 0 && !renewing) {
      renewing = true;
      showNote(step.quoteRenewing);
      poll();
    }
  }

  /** The payment step as the service now has it: the same quote updated in place, a new one shown. */
  function follow(now) {
    if (now.amount !== step.amount || now.address !== step.address) {
      refresh();
      return true;
    }
    if (now.quoteExpiresAt !== step.quoteExpiresAt) {
      if (!now.quoteLocked && !now.quoteExpired) {
        refresh();
        return true;
      }
    }
    locked = now.quoteLocked;
    setText(progress, progressText(now));
    payment.setAttribute('data-progress', now.progress.state);
    if (now.quoteLocked) showNote(step.quoteLocked);
    else if (now.quoteExpired) showNote(step.quoteExpired);
    else if (!renewing) showNote('');
    return false;
  }

  var timer;
  function poll() {
    fetch(data.actions + '/status', { credentials: 'omit', cache: 'no-store' })
      .then(function (answer) {
        return answer.ok ? answer.json() : undefined;
      })
      .then(function (answer) {
        var now = stateIn(answer);
        if (!now || busy) return;
        if (now.stage !== data.stage) {
          window.clearInterval(timer);
          announce(now);
          refresh();
          return;
        }
        if (step && now.payment && follow(now.payment)) window.clearInterval(timer);
      })
      .catch(function () {
        // A missed poll is retried with the next one.
      });
  }

  // The copy buttons: the clipboard where the browser allows it, else the text selected and
  // copied; either way the result is said in the page's live region.
  function selectText(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  Array.prototype.forEach.call(document.querySelectorAll('button[data-copy]'), function (button) {
    var source = document.getElementById(button.getAttribute('data-copy'));
    var done =
      button.getAttribute('data-copied') === 'amount' ? step.amountCopied : step.addressCopied;
    button.hidden = false;
    button.addEventListener('click', function () {
      var text = source.textContent.trim();
      function fallback() {
        selectText(source);
        var copied;
        try {
          copied = document.execCommand('copy');
        } catch {
          copied = false;
        }
        live.textContent = copied ? done : step.copyFailed;
      }
      var clipboard = window.navigator.clipboard;
      if (clipboard && clipboard.writeText) {
        clipboard.writeText(text).then(function () {
          live.textContent = done;
        }, fallback);
      } else {
        fallback();
      }
    });
  });

  // While the payment is open (or expired but not yet closed), follow it: a transfer, the
  // processor's report, or the expiry, may change it at any time.
  if (data.stage !== 'ended') {
    timer = window.setInterval(poll, POLL_MS);
    if (step) {
      tick();
      window.setInterval(tick, 1000);
    }
  }
})();
