import Ajv from "ajv";
import addFormats from "ajv-formats";
import { fromAjvError } from "../core/errors.ts";

type Definition = { components?: { schemas?: Record<string, object> } };

/**
 * Validates values against the (dereferenced) component schemas of the OpenAPI document, for inputs that
 * reach us encoded: JSON in query parameters (GET analyses, property filters). Compiled once per schema.
 */
export function createSchemaValidator(definition: Definition) {
  const ajv = new Ajv.default({ strict: false, allErrors: false, coerceTypes: false });
  addFormats.default(ajv, ["date-time", "date", "email", "uuid", "uri"]);
  /** Every error, so that the unknown top-level keys can be set aside and the first real one reported. */
  const ajvAll = new Ajv.default({ strict: false, allErrors: true, coerceTypes: false });
  addFormats.default(ajvAll, ["date-time", "date", "email", "uuid", "uri"]);
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const compile = (engine: typeof ajv, key: string, schemaName: string) => {
    let validate = compiled.get(key);
    if (!validate) {
      const schema = definition.components?.schemas?.[schemaName];
      if (!schema) throw new Error(`no schema ${schemaName} in the OpenAPI document`);
      validate = engine.compile(schema);
      compiled.set(key, validate);
    }
    return validate;
  };
  return {
    /** Throws the API's 400 naming the first bad field (prefixed with `root`, e.g. the query parameter). */
    assert(schemaName: string, value: unknown, root?: string): void {
      const validate = compile(ajv, schemaName, schemaName);
      if (!validate(value)) throw fromAjvError(validate.errors![0]!, root);
    },
    /**
     * As `assert`, but keys the schema does not list at the top level are allowed: the known keys must be valid
     * (a saved insight's `filters` store free-form keys, as the real service does).
     */
    assertKnown(schemaName: string, value: unknown, root?: string): void {
      const validate = compile(ajvAll, `${schemaName} (known keys)`, schemaName);
      if (validate(value)) return;
      const first = validate.errors!.find((e) => !(e.keyword === "additionalProperties" && e.instancePath === ""));
      if (first) throw fromAjvError(first, root);
    },
  };
}

export type SchemaValidator = ReturnType<typeof createSchemaValidator>;
