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

  function block(text) {
    var pre = document.createElement('pre');
    pre.className = 'code';
    var code = document.createElement('code');
    code.textContent = typeof text === 'string' ? text : JSON.stringify(text);
    pre.appendChild(code);
    return pre;
  }

  /**
   * One step of the flow in the log: a heading, what it comes to, and (folded) the whole of what
   * was sent and received.
   */
  function step(name, title, shown, whole, wholeLabel) {
    var item = document.createElement('li');
    item.className = 'step';
    item.setAttribute('data-step', name);
    var heading = document.createElement('h3');
    heading.textContent = title;
    item.appendChild(heading);
    if (shown !== undefined) item.appendChild(block(shown));
    if (whole !== undefined) {
      var details = document.createElement('details');
      var summary = document.createElement('summary');
      summary.textContent = wholeLabel || 'The request and the answer, in full';
      details.appendChild(summary);
      details.appendChild(block(whole));
      item.appendChild(details);
    }
    log.appendChild(item);
    empty.hidden = true;
  }

  /** The request line, its headers, and the answer's status. */
  function request(x) {
    var lines = [x.method + ' ' + base + x.path];
    Object.keys(x.headers).forEach(function (name) {
      lines.push(name + ': ' + x.headers[name]);
    });
    return lines.join('\n') + '\n\n→ HTTP ' + x.status;
  }

  /** An error envelope's entries, one a line. */
  function errors(body) {
    return ((body && body.errors) || [])
      .map(function (e) {
        return e.errorCode + (e.field ? ' ' + e.field : '') + ': ' + e.message;
      })
      .join('\n');
  }

  /** How a payment ended, in a line: its status and why. */
  function outcome(element) {
    return ['status', 'detailedStatus', 'errorMessage']
      .filter(function (name) {
        return element[name] !== undefined;
      })
      .map(function (name) {
        return name + ': ' + element[name];
      })
      .join(', ');
  }

  /** An exchange of the shop's server with the gateway, as HTTP reads, bodies included. */
  function exchange(x) {
    var lines = [request(x)];
    if (x.requestBody) lines.push('', 'Request body:', JSON.stringify(x.requestBody, null, 2));
    lines.push('', 'Answer:', JSON.stringify(x.responseBody, null, 2));
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
          step(
            'error',
            'The shop refused the order (HTTP ' + answer.status + ')',
            errors(answer.body),
          );
          say('The shop refused the order.');
          return;
        }
        var started = answer.body.payload[0];
        var x = started.initIframe;
        step(
          'init-iframe',
          "Shop's server → gateway: init-iframe answered " + x.status,
          request(x) +
            (started.initializationToken
              ? ', initializationToken ' + started.initializationToken
              : '\n' + errors(x.responseBody)),
          exchange(x),
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
          step(
            'error',
            'The shop lost the payment (HTTP ' + answer.status + ')',
            errors(answer.body),
          );
          return;
        }
        found.callbacks.forEach(function (callback) {
          step(
            'callback',
            'Gateway → shop: callback to its ' + callback.kind + 'Url, signature verified',
            'POST ' +
              base +
              '/demo/callbacks/' +
              callback.kind +
              '\nwebhook-id: ' +
              callback.webhookId +
              '\nsigned at: ' +
              callback.signedAt +
              "\nsignature: verified with the demo merchant's secret (standardwebhooks)" +
              '\n\n' +
              outcome(callback.body),
            JSON.stringify(callback.body, null, 2),
            'The body, in full',
          );
        });
        if (found.callbacks.length === 0) step('error', 'No callback came in time.');
        var lookup = found.statusLookup;
        var element = lookup.responseBody && lookup.responseBody.payload;
        step(
          'status',
          "Shop's server → gateway: the status lookup answered " + lookup.status,
          request(lookup) + '\n' + (element ? outcome(element[0]) : errors(lookup.responseBody)),
          exchange(lookup),
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
