/**
 * Minimal typed-client calls for every operation of an OpenAPI document: each operation called with openapi-fetch,
 * giving only what the document requires (required parameters, a required body's required fields, nested). A
 * client generated with openapi-typescript's defaults must accept every one of them.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"] as const;

/** The target of a local `$ref` (`#/components/schemas/X`), or the value itself. */
function deref(doc: Json, value: unknown): unknown {
  let current = value;
  for (let hops = 0; isObject(current) && typeof current.$ref === "string"; hops++) {
    if (hops > 20) throw new Error(`$ref cycle at ${current.$ref}`);
    const ref: string = current.$ref;
    if (!ref.startsWith("#/")) throw new Error(`external $ref ${ref}: bundle the document first`);
    current = ref
      .slice(2)
      .split("/")
      .reduce<unknown>((node, part) => (isObject(node) ? node[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined), doc);
  }
  return current;
}

/** The smallest value of a schema's type that gives only its required fields (as TypeScript sees the schema). */
export function minimalValue(doc: Json, schemaOrRef: unknown, depth = 0): unknown {
  const schema = deref(doc, schemaOrRef);
  if (!isObject(schema) || depth > 30) return {};
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.find((v) => v !== null) ?? schema.enum[0];
  const branches = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) return discriminated(doc, schema, branches[0], depth);
  if (Array.isArray(schema.allOf)) {
    const parts = withSiblingProperties(doc, schema.allOf);
    return Object.assign({}, ...parts.map((part) => minimalValue(doc, part, depth + 1)).filter(isObject), minimalObject(doc, schema, depth));
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "string":
      return "x";
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return false;
    case "null":
      return null;
    case "array":
      return [];
    default:
      return minimalObject(doc, schema, depth);
  }
}

/** A oneOf's first branch, its discriminator property set to the name the mapping gives that branch. */
function discriminated(doc: Json, schema: Json, branch: unknown, depth: number): unknown {
  const value = minimalValue(doc, branch, depth + 1);
  const discriminator = isObject(schema.discriminator) ? schema.discriminator : undefined;
  if (!discriminator || !isObject(value) || !isObject(branch) || typeof discriminator.propertyName !== "string") return value;
  const mapping = isObject(discriminator.mapping) ? discriminator.mapping : {};
  const name = Object.entries(mapping).find(([, ref]) => ref === branch.$ref)?.[0] ?? String(branch.$ref ?? "").split("/").pop();
  return { ...value, [discriminator.propertyName]: name };
}

const propertiesOf = (schema: unknown): Json => (isObject(schema) && isObject(schema.properties) ? schema.properties : {});

/**
 * An allOf's parts, each part that requires fields given the properties its siblings describe: a part may require
 * a field only another part describes (`allOf: [$ref: Write, { required: [name] }]`), and TypeScript's
 * intersection types that field as the sibling does.
 */
function withSiblingProperties(doc: Json, parts: unknown[]): unknown[] {
  const described: Json = Object.assign({}, ...parts.map((part) => propertiesOf(deref(doc, part))));
  return parts.map((part) => {
    const schema = deref(doc, part);
    if (!isObject(schema) || !Array.isArray(schema.required)) return part;
    return { ...schema, properties: { ...described, ...propertiesOf(schema) } };
  });
}

function minimalObject(doc: Json, schema: Json, depth: number): Json {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return Object.fromEntries(required.map((name) => [name, minimalValue(doc, properties[name] ?? {}, depth + 1)]));
}

interface Param {
  name: string;
  in: string;
  required?: boolean;
  schema?: unknown;
}

/** The operation's required parameters by location (`path`, `query`, `header`), with minimal values. */
function requiredParams(doc: Json, pathItem: Json, operation: Json): Record<string, Json> {
  const params = [...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []), ...(Array.isArray(operation.parameters) ? operation.parameters : [])]
    .map((p) => deref(doc, p) as Param)
    .filter((p) => p.required && p.in !== "cookie");
  const byPlace: Record<string, Json> = {};
  for (const p of params) (byPlace[p.in] ??= {})[p.name] = minimalValue(doc, p.schema ?? {});
  return byPlace;
}

/** The JSON request body an openapi-fetch call must carry, when the operation requires one. */
function requiredBody(doc: Json, operation: Json): { value: unknown } | undefined {
  const body = deref(doc, operation.requestBody);
  if (!isObject(body) || body.required !== true || !isObject(body.content)) return undefined;
  const [, media] = Object.entries(body.content)[0] ?? [];
  return { value: isObject(media) ? minimalValue(doc, media.schema ?? {}) : {} };
}

export interface MinimalCall {
  operationId: string;
  /** One TypeScript statement: `client.POST("/path", { ... });`. */
  source: string;
}

/** One openapi-fetch call a document's operation needs at least, for every operation of the (bundled) document. */
export function minimalCalls(doc: Json, client = "client"): MinimalCall[] {
  const paths = isObject(doc.paths) ? doc.paths : {};
  return Object.entries(paths).flatMap(([path, item]) => {
    if (!isObject(item)) return [];
    return METHODS.filter((m) => isObject(item[m])).map((method) => {
      const operation = item[method] as Json;
      const init: Json = {};
      const params = requiredParams(doc, item, operation);
      if (Object.keys(params).length > 0) init.params = params;
      const body = requiredBody(doc, operation);
      if (body) init.body = body.value;
      const args = Object.keys(init).length > 0 ? `, ${JSON.stringify(init)}` : "";
      return { operationId: String(operation.operationId ?? `${method} ${path}`), source: `${client}.${method.toUpperCase()}(${JSON.stringify(path)}${args});` };
    });
  });
}

/** The component schemas a request body reaches (through `$ref`s, properties, items and combinations). */
function requestComponents(doc: Json): Set<string> {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isObject(node)) return;
    if (typeof node.$ref === "string") {
      if (node.$ref.startsWith("#/components/schemas/") && !found.has(node.$ref)) {
        found.add(node.$ref);
        visit(deref(doc, node));
      }
      return;
    }
    Object.values(node).forEach(visit);
  };
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const m of METHODS) if (isObject(item[m])) visit(deref(doc, (item[m] as Json).requestBody));
  }
  return found;
}

/**
 * Optional properties with a `default` in the component schemas request bodies use, as `Name.field.sub`: openapi-typescript's
 * default `defaultNonNullable` makes each of them a required field of the generated type (only inline request bodies
 * and parameters are spared), so a client would have to send what the server would assume.
 */
export function requestDefaults(doc: Json): string[] {
  const found: string[] = [];
  const visit = (schema: unknown, where: string): void => {
    if (!isObject(schema) || typeof schema.$ref === "string") return;
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const [name, property] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
      if (isObject(property) && "default" in property && !required.includes(name)) found.push(`${where}.${name}`);
      visit(property, `${where}.${name}`);
    }
    for (const key of ["items", "additionalProperties"]) visit(schema[key], `${where}[]`);
    for (const key of ["allOf", "oneOf", "anyOf"]) if (Array.isArray(schema[key])) (schema[key] as unknown[]).forEach((s) => visit(s, where));
  };
  for (const ref of requestComponents(doc)) visit(deref(doc, { $ref: ref }), ref.split("/").pop()!);
  return found;
}
