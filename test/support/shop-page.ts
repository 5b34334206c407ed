/**
 * The shop page the README's Playwright example runs against (test/playwright/kit.test.ts, and a consumer
 * project in test/install/): the real posthog-js, its api_host and token read from the URL, a "new-checkout"
 * flag shown, and two buttons that capture "clicked buy".
 */
export const SHOP_HTML = `<!doctype html><html><head><title>shop</title>
<script src="/posthog.js"></script>
<script>
  const params = new URLSearchParams(location.search);
  posthog.init(params.get("token"), {
    api_host: params.get("api_host"),
    opt_out_useragent_filter: true,
    autocapture: false,
    disable_session_recording: true,
  });
  posthog.onFeatureFlags(() => {
    if (posthog.isFeatureEnabled("new-checkout")) document.getElementById("checkout").textContent = "New checkout";
  });
</script></head><body>
<h1>shop</h1><p id="checkout">Checkout</p>
<button onclick="posthog.capture('clicked buy', { price: 12 })">Buy</button>
<button onclick="posthog.capture('clicked buy', { price: '12' })">Order with a text price</button>
</body></html>`;

/**
 * The checkout app of the README's shared-server example (test/playwright/shared-server.spec.ts): the shopper
 * comes from the URL, as `bootstrap.distinctID`; the button's class is the checkout-experiment variant, the
 * banner shows until the flags say welcome-banner is off.
 */
export const checkoutHtml = (mock: string, token: string) => `<!doctype html><html><head><title>checkout</title></head><body>
<p id="banner">Welcome!</p>
<button id="buy" onclick="posthog.capture('clicked buy')">Buy</button>
<script src="/posthog.js"></script>
<script>
  posthog.init(${JSON.stringify(token)}, {
    api_host: ${JSON.stringify(mock)},
    bootstrap: { distinctID: new URLSearchParams(location.search).get("shopper") },
    opt_out_useragent_filter: true,
    autocapture: false,
    disable_session_recording: true,
  });
  posthog.onFeatureFlags(() => {
    document.getElementById("buy").className = String(posthog.getFeatureFlag("checkout-experiment") ?? "");
    document.getElementById("banner").hidden = !posthog.isFeatureEnabled("welcome-banner");
  });
</script></body></html>`;
