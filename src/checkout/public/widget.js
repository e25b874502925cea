// The payment widget: `showPaymentIframe(containerId, {token, success, fail, cancel, complete})`
// (alias `nxsgpgc3`) puts the checkout page of `token` in an iframe inside the container, calls
// `success`, `fail` or `cancel` when the payment ends that way and `complete` after any of them,
// and returns `{close()}`. Messages from the page are taken only from its frame at the service's
// origin; the page answers only the origin it was opened for. A page that cannot load (an unknown
// token, a merchant origin not allowed to frame it, the service out of reach) never answers: the
// widget then calls `fail` with {status: 'NOT_COMPLETED', detailedStatus: 'UNAVAILABLE'} and
// `complete`, and says so in the container, within 10 s. No dependencies.
(function () {
  'use strict';
  // The service fills in where its checkout pages are (its CONTEXT_PATH).
  var BASE = '__CHECKOUT_BASE__';
  var script =
    document.currentScript ||
    Array.prototype.slice
      .call(document.getElementsByTagName('script'))
      .filter(function (s) {
        return /\/widgets\/sgpg\.js(\?|$)/.test(s.src);
      })
      .pop();
  var ORIGIN = new URL(script ? script.src : window.location.href, window.location.href).origin;
  var CALLBACKS = { success: 'success', fail: 'fail', cancel: 'cancel' };
  // How long the page has to answer: from the frame's start (a page of the service loads in well
  // under a second), and from its load event (its script has run by then, so it answers the
  // hello at once). Both end before 10 s.
  var ANSWER_MS = 8000;
  var AFTER_LOAD_MS = 3000;
  var UNAVAILABLE = { status: 'NOT_COMPLETED', detailedStatus: 'UNAVAILABLE' };
  var UNAVAILABLE_TEXT = 'This payment cannot be shown. Return to the shop and try again.';

  function call(callback, detail) {
    if (typeof callback !== 'function') return;
    try {
      callback(detail);
    } catch (error) {
      // A merchant's callback that throws must not stop the others.
      window.setTimeout(function () {
        throw error;
      });
    }
  }

  function showPaymentIframe(containerId, options) {
    var container =
      typeof containerId === 'string' ? document.getElementById(containerId) : containerId;
    if (!container) throw new Error('showPaymentIframe: no element with id "' + containerId + '"');
    if (!options || typeof options.token !== 'string' || options.token === '') {
      throw new Error('showPaymentIframe: options.token is required');
    }
    var iframe = document.createElement('iframe');
    iframe.src =
      ORIGIN +
      BASE +
      '/checkout/' +
      encodeURIComponent(options.token) +
      '?origin=' +
      encodeURIComponent(window.location.origin);
    iframe.title = options.title || 'Payment';
    iframe.style.width = '100%';
    iframe.style.minHeight = '360px';
    iframe.style.border = '0';
    // The copy buttons of the page write to the clipboard.
    iframe.allow = 'clipboard-write';
    var ended = false;
    var answered = false;
    var timers = [];

    function end(callback, detail) {
      ended = true;
      clearTimers();
      call(options[callback], detail);
      call(options.complete, detail);
    }

    function clearTimers() {
      timers.forEach(window.clearTimeout);
      timers = [];
    }

    // No answer from the page: it did not load. Never a blank box: the frame gives way to a
    // sentence, and the merchant's page is told.
    function unavailable() {
      if (answered || ended) return;
      var notice = document.createElement('p');
      notice.setAttribute('role', 'alert');
      notice.className = 'sgpg-unavailable';
      notice.textContent = UNAVAILABLE_TEXT;
      if (iframe.parentNode) iframe.parentNode.replaceChild(notice, iframe);
      end('fail', { status: UNAVAILABLE.status, detailedStatus: UNAVAILABLE.detailedStatus });
    }

    function onMessage(event) {
      if (event.origin !== ORIGIN || event.source !== iframe.contentWindow) return;
      var data = event.data;
      if (!data || data.source !== 'sgpg') return;
      if (data.type === 'sgpg:ready' || data.type === 'sgpg:outcome') {
        answered = true;
        clearTimers();
      }
      if (data.type === 'sgpg:resize' && typeof data.height === 'number') {
        iframe.style.height = Math.min(Math.max(Math.ceil(data.height), 200), 4000) + 'px';
      }
      if (data.type === 'sgpg:outcome' && !ended && CALLBACKS[data.outcome]) {
        var detail = { status: data.status };
        if (data.detailedStatus) detail.detailedStatus = data.detailedStatus;
        end(CALLBACKS[data.outcome], detail);
      }
    }

    window.addEventListener('message', onMessage);
    iframe.addEventListener('load', function () {
      if (iframe.contentWindow) {
        iframe.contentWindow.postMessage({ source: 'sgpg', type: 'sgpg:hello' }, ORIGIN);
      }
      if (!answered && !ended) timers.push(window.setTimeout(unavailable, AFTER_LOAD_MS));
    });
    timers.push(window.setTimeout(unavailable, ANSWER_MS));
    container.appendChild(iframe);
    return {
      close: function () {
        clearTimers();
        window.removeEventListener('message', onMessage);
        if (iframe.parentNode) iframe.parentNode.removeChild(iframe);
      },
    };
  }

  window.showPaymentIframe = showPaymentIframe;
  window.nxsgpgc3 = showPaymentIframe;
})();
