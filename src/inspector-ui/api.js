// Every call the inspector makes: the control API (/_mock/…) and the product API with the running server's key.
// There is no other way to change state.
export const session = JSON.parse(document.getElementById("session").textContent);

/** An answer's JSON, or an Error carrying the API's `detail`. */
async function answer(res) {
  const text = await res.text();
  const body = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(body?.detail ?? `${res.status} ${res.statusText}`);
  return body;
}

const jsonInit = (method, body, headers = {}) => ({
  method,
  headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
  body: body === undefined ? undefined : JSON.stringify(body),
});

/** A control API call: `control("POST", "reset/")`. */
export const control = (method, path, body, signal) => fetch(`/_mock/${path}`, { ...jsonInit(method, body), signal }).then(answer);

const KEY_STORE = "analytics-mock-inspector-key";
const keyInput = () => document.querySelector("#key-field input");

/**
 * The personal API key for product API calls. No control answer carries it: `/` shows it to a viewer on the
 * server's machine (the rule the docs' Try it out follows), so the page reads it there; elsewhere it asks once.
 */
const shownKey = fetch("/", { headers: { accept: "text/html" } })
  .then((res) => res.text())
  .then((html) => /<code id="api-key">([A-Za-z0-9_]+)<\/code>/.exec(html)?.[1] ?? null)
  .catch(() => null);

async function personalKey() {
  const key = (await shownKey) ?? keyInput()?.value ?? sessionStorage.getItem(KEY_STORE);
  if (key) return key;
  const field = document.getElementById("key-field");
  field.hidden = false;
  keyInput().addEventListener("change", (ev) => sessionStorage.setItem(KEY_STORE, ev.target.value), { once: true });
  throw new Error("Enter the personal API key `npm start` printed (top right), then try again.");
}

/** A product API call for a project, with the running server's key: `product(1, "GET", "insights/")`. */
export const product = async (projectId, method, path, body) =>
  fetch(`/api/projects/${encodeURIComponent(projectId)}/${path}`, jsonInit(method, body, { authorization: `Bearer ${await personalKey()}` })).then(answer);

/** What posthog-js receives from `/flags` for a distinct id (forced values included): the capture door, with the project's token. */
export const flagsFor = (token, distinctId) =>
  fetch("/flags/?v=2", jsonInit("POST", { token, distinct_id: distinctId })).then(answer);
