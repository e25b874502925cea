// The payment widget: `showPaymentIframe(containerId, {token, success, fail, cancel, complete})`
// (alias `nxsgpgc3`) puts the checkout page of `token` in an iframe inside the container, calls
// `success`, `fail` or `cancel` when the payment ends that way and `complete` after any of them,
// and returns `{close()}`. Messages from the page are taken only from its frame at the service's
// origin; the page answers only the origin it was opened for. No dependencies.
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
    var ended = false;

    function onMessage(event) {
      if (event.origin !== ORIGIN || event.source !== iframe.contentWindow) return;
      var data = event.data;
      if (!data || data.source !== 'sgpg') return;
      if (data.type === 'sgpg:resize' && typeof data.height === 'number') {
        iframe.style.height = Math.min(Math.max(Math.ceil(data.height), 200), 4000) + 'px';
      }
      if (data.type === 'sgpg:outcome' && !ended && CALLBACKS[data.outcome]) {
        ended = true;
        var detail = { status: data.status };
        if (data.detailedStatus) detail.detailedStatus = data.detailedStatus;
        call(options[CALLBACKS[data.outcome]], detail);
        call(options.complete, detail);
      }
    }

    window.addEventListener('message', onMessage);
    iframe.addEventListener('load', function () {
      if (iframe.contentWindow) {
        iframe.contentWindow.postMessage({ source: 'sgpg', type: 'sgpg:hello' }, ORIGIN);
      }
    });
    container.appendChild(iframe);
    return {
      close: function () {
        window.removeEventListener('message', onMessage);
        if (iframe.parentNode) iframe.parentNode.removeChild(iframe);
      },
    };
  }

  window.showPaymentIframe = showPaymentIframe;
  window.nxsgpgc3 = showPaymentIframe;
})();
