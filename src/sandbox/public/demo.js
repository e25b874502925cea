// The demo shop's page script, as a merchant would write it: asks the shop's own server to start
// a payment (the server holds the API key and calls init-iframe), shows the gateway's widget with
// the token, and once the payment ends shows what the shop's server received: the signed
// callback and the status lookup's answer. Everything it writes into the page is text.
(function () {
  'use strict';
  var main = document.getElementById('main');
  var form = document.getElementById('pay');
  if (!main || !form) return;
  var base = main.getAttribute('data-base') || '';
  var log = document.getElementById('log');
  var empty = document.getElementById('log-empty');
  var announce = document.getElementById('announce');
  var widgetTitle = document.getElementById('widget-title');
  var POLL_MS = 500;
  var POLL_TRIES = 60;
  var widget;
  var current = 0;

  function say(text) {
    announce.textContent = text;
  }

  /** One step of the flow in the log: a heading, and what was sent or received. */
  function step(name, title, detail) {
    var item = document.createElement('li');
    item.className = 'step';
    item.setAttribute('data-step', name);
    var heading = document.createElement('h3');
    heading.textContent = title;
    item.appendChild(heading);
    if (detail !== undefined) {
      var pre = document.createElement('pre');
      pre.className = 'code';
      var code = document.createElement('code');
      code.textContent = typeof detail === 'string' ? detail : JSON.stringify(detail, null, 2);
      pre.appendChild(code);
      item.appendChild(pre);
    }
    log.appendChild(item);
    empty.hidden = true;
  }

  /** An exchange of the shop's server with the gateway, as HTTP reads. */
  function exchange(x) {
    var lines = [x.method + ' ' + base + x.path];
    Object.keys(x.headers).forEach(function (name) {
      lines.push(name + ': ' + x.headers[name]);
    });
    if (x.requestBody) lines.push('', JSON.stringify(x.requestBody, null, 2));
    lines.push('', 'HTTP ' + x.status, JSON.stringify(x.responseBody, null, 2));
    return lines.join('\n');
  }

  function value(name) {
    return form.elements.namedItem(name).value;
  }

  function getJson(answer) {
    return answer.json().then(function (body) {
      return { status: answer.status, ok: answer.ok, body: body };
    });
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var payment = ++current;
    if (widget) widget.close();
    widget = undefined;
    widgetTitle.hidden = true;
    log.textContent = '';
    empty.hidden = false;
    say('Starting the payment.');
    fetch(base + '/demo/payments', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        amount: value('amount'),
        currency: value('currency'),
        description: value('description'),
        countryCode: value('countryCode'),
        languagePreference: value('languagePreference'),
      }),
      credentials: 'same-origin',
    })
      .then(getJson)
      .then(function (answer) {
        if (payment !== current) return;
        if (!answer.ok) {
          step('error', 'The shop refused the order (HTTP ' + answer.status + ')', answer.body);
          say('The shop refused the order.');
          return;
        }
        var started = answer.body.payload[0];
        step(
          'init-iframe',
          "Shop's server → gateway: init-iframe answered " + started.initIframe.status,
          exchange(started.initIframe),
        );
        if (!started.initializationToken) {
          say('The gateway refused the payment: see its answer.');
          return;
        }
        showWidget(started, payment);
      })
      .catch(function () {
        if (payment !== current) return;
        step('error', "The shop's server did not answer.");
        say("The shop's server did not answer.");
      });
  });

  /** Shows the widget exactly as integrations do, and notes what it calls. */
  function showWidget(started, payment) {
    step(
      'widget',
      'Shop page: showPaymentIframe',
      "window.showPaymentIframe('widget-container', {\n  token: '" +
        started.initializationToken +
        "',\n  success, fail, cancel, complete,\n});",
    );
    function note(name) {
      return function (detail) {
        if (payment !== current) return;
        step('widget-' + name, 'Widget → shop page: ' + name + '()', detail);
        if (name === 'complete') {
          say('The payment ended: ' + detail.status + '. Waiting for the callback.');
          follow(started.validationKey, payment, 0);
        }
      };
    }
    widget = window.showPaymentIframe('widget-container', {
      token: started.initializationToken,
      title: 'Payment page of the gateway',
      success: note('success'),
      fail: note('fail'),
      cancel: note('cancel'),
      complete: note('complete'),
    });
    widgetTitle.hidden = false;
    widgetTitle.focus();
    say('The payment page is open below.');
  }

  /** Asks the shop's server until the callback has come, then shows it and the status lookup. */
  function follow(key, payment, tries) {
    fetch(base + '/demo/payments/' + encodeURIComponent(key), {
      credentials: 'same-origin',
      cache: 'no-store',
    })
      .then(getJson)
      .then(function (answer) {
        if (payment !== current) return;
        var found = answer.ok ? answer.body.payload[0] : undefined;
        if ((!found || found.callbacks.length === 0) && tries < POLL_TRIES) {
          window.setTimeout(function () {
            follow(key, payment, tries + 1);
          }, POLL_MS);
          return;
        }
        if (!found) {
          step('error', 'The shop lost the payment (HTTP ' + answer.status + ')', answer.body);
          return;
        }
        found.callbacks.forEach(function (callback) {
          step(
            'callback',
            'Gateway → shop: callback to its ' + callback.kind + 'Url, signature verified',
            'webhook-id: ' +
              callback.webhookId +
              '\nsigned at: ' +
              callback.signedAt +
              "\nsignature: verified with the demo merchant's secret (standardwebhooks)\n\n" +
              JSON.stringify(callback.body, null, 2),
          );
        });
        if (found.callbacks.length === 0) step('error', 'No callback has come yet.');
        step(
          'status',
          "Shop's server → gateway: the status lookup answered " + found.statusLookup.status,
          exchange(found.statusLookup),
        );
        say('The callback came and the status lookup answered: see What happened.');
      })
      .catch(function () {
        if (payment === current && tries < POLL_TRIES) {
          window.setTimeout(function () {
            follow(key, payment, tries + 1);
          }, POLL_MS);
        }
      });
  }
})();
